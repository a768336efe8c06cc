// How the sandbox's self-tests (detect.ts: bwrap; network.ts: pasta around bwrap) run a command:
// at once and waited for (spawnSync, where a caller needs the answer now), or in the background
// (the start runs both self-tests side by side while it builds the core: pasta's alone is ~0.1–0.3 s
// of waiting). Either way the answer has the same shape, read by the same code.
import { spawn, spawnSync } from 'node:child_process'

/** What a self-test's run left: as spawnSync reports it. */
export interface ProbeRun {
  pid?: number
  status: number | null
  stderr: string
  error?: Error
}

/** Every self-test runs with no input, no output but stderr, a plain PATH. */
const IO = { stdio: ['ignore', 'ignore', 'pipe'] as ['ignore', 'ignore', 'pipe'], env: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) }

/** Runs it and waits (killed after `timeoutMs`). */
export function runProbeSync(cmd: string, args: readonly string[], timeoutMs: number): ProbeRun {
  const r = spawnSync(cmd, args, { stdio: IO.stdio, env: IO.env(), timeout: timeoutMs, encoding: 'utf8' })
  return { ...(r.pid ? { pid: r.pid } : {}), status: r.status, stderr: r.stderr ?? '', ...(r.error ? { error: r.error } : {}) }
}

/** The same run in the background; never rejects (a failure to start, or the timeout, is `error`, as with spawnSync). */
export function runProbe(cmd: string, args: readonly string[], timeoutMs: number): Promise<ProbeRun> {
  return new Promise((resolve) => {
    let stderr = ''
    let error: Error | undefined
    const child = spawn(cmd, args, { stdio: IO.stdio, env: IO.env() })
    const timer = setTimeout(() => {
      error ??= Object.assign(new Error(`spawn ${cmd} ETIMEDOUT`), { code: 'ETIMEDOUT' })
      child.kill('SIGTERM')
    }, timeoutMs)
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 65536) stderr += d
    })
    // a binary that cannot be started: 'error', then 'close'
    child.on('error', (e) => {
      error ??= e
    })
    child.on('close', (status) => {
      clearTimeout(timer)
      resolve({ ...(child.pid ? { pid: child.pid } : {}), status, stderr, ...(error ? { error } : {}) })
    })
  })
}
