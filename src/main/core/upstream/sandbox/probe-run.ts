// How the sandbox's self-tests (detect.ts: bwrap; network.ts: pasta around bwrap) run and keep
// their answer: once per process and key, at once and waited for (spawnSync, where a caller needs
// the answer now), or in the background (the start runs both self-tests side by side while it
// builds the core: pasta's alone is ~0.1–0.3 s of waiting). Either way the run has the same shape,
// is judged by the same verdict, and a command that leads a process group of its own (pasta's,
// setsid) leaves nothing of it: killed once it ends, and with Toolgate (process-group.ts).
import { spawn, spawnSync } from 'node:child_process'
import { killGroup, killGroupsAtEnd, trackGroup } from '../process-group'

/** What a self-test's run left: as spawnSync reports it. */
export interface ProbeRun {
  pid?: number
  status: number | null
  stderr: string
  error?: Error
}

/** What a self-test runs and how its run is judged, or the answer where there is nothing to run. */
export type ProbePlan<T> =
  | {
      argv: readonly string[]
      /** the command leads a process group of its own (setsid): what is left of it is killed */
      ownGroup: boolean
      verdict: (run: ProbeRun) => T
    }
  | { answer: T }

/** A self-test's answer, found once per process and key. */
export interface CachedProbe<A extends unknown[], T> {
  /** from the cache, else the self-test run now and waited for */
  now(...args: A): T
  /** the same, with the self-test run in the background; now() answers from the cache afterwards */
  soon(...args: A): Promise<T>
}

/** Every self-test runs with no input, no output but stderr, a plain PATH. */
const STDIO: ['ignore', 'ignore', 'pipe'] = ['ignore', 'ignore', 'pipe']
const probeEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' })

/** A self-test whose answers are kept per `key(...args)`; a run is killed after `timeoutMs`. */
export function cachedProbe<A extends unknown[], T>(key: (...args: A) => string, plan: (...args: A) => ProbePlan<T>, timeoutMs: number): CachedProbe<A, T> {
  const cache = new Map<string, T>()
  return {
    now(...args) {
      const k = key(...args)
      if (cache.has(k)) return cache.get(k) as T
      const p = plan(...args)
      const found = 'answer' in p ? p.answer : p.verdict(runSync(p.argv, p.ownGroup, timeoutMs))
      cache.set(k, found)
      return found
    },
    async soon(...args) {
      const k = key(...args)
      if (cache.has(k)) return cache.get(k) as T
      const p = plan(...args)
      const found = 'answer' in p ? p.answer : p.verdict(await runInBackground(p.argv, p.ownGroup, timeoutMs))
      // (a now() meanwhile answered first: the process keeps that answer)
      if (!cache.has(k)) cache.set(k, found)
      return cache.get(k) as T
    },
  }
}

/** Runs it and waits (killed after `timeoutMs`). */
function runSync(argv: readonly string[], ownGroup: boolean, timeoutMs: number): ProbeRun {
  // a signal that ends Toolgate meanwhile is handled once the run is over, after its group is killed
  if (ownGroup) killGroupsAtEnd()
  const r = spawnSync(argv[0] ?? '', argv.slice(1), { stdio: STDIO, env: probeEnv(), timeout: timeoutMs, encoding: 'utf8' })
  if (ownGroup && r.pid) killGroup(r.pid)
  return { ...(r.pid ? { pid: r.pid } : {}), status: r.status, stderr: r.stderr ?? '', ...(r.error ? { error: r.error } : {}) }
}

/** The same run in the background; never rejects (a failure to start, or the timeout, is `error`, as with spawnSync). */
function runInBackground(argv: readonly string[], ownGroup: boolean, timeoutMs: number): Promise<ProbeRun> {
  return new Promise((resolve) => {
    let stderr = ''
    let error: Error | undefined
    const cmd = argv[0] ?? ''
    const child = spawn(cmd, argv.slice(1), { stdio: STDIO, env: probeEnv() })
    // its group is killed if Toolgate ends while it runs, and once its leader is gone (the 'close'
    // below waits for every holder of its stderr, and a namespace child left behind is one)
    const group = ownGroup && child.pid ? child.pid : null
    if (group !== null) {
      trackGroup(group)
      child.once('exit', () => killGroup(group))
    }
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
