// Runs a shell inside the real bwrap sandbox a server config would get (launchSpec), with a
// throwaway home, data dir and config file: what it prints is what the server could read.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, vi } from 'vitest'
import { launchSpec, sandboxSupport } from '../../src/main/core/upstream/sandbox'
import type { ServerConfig } from '../../src/shared/config-schema'

export interface ProbeWorld {
  root: string
  home: string
  dataDir: string
  configPath: string
  /** a folder outside the home the test writes to tell the probe to go on (granted to it) */
  signal: string
  put(rel: string, text: string, mode?: number): string
}

/**
 * For a test file of sandbox probes: requires a working bwrap before its tests (the suite's
 * machine installs it: .ci/run) and removes every world made with the returned list after them.
 */
export function useProbeRoots(): string[] {
  const roots: string[] = []
  beforeAll(() => {
    const support = sandboxSupport()
    expect(support.available, `bwrap must work on this machine: ${support.reason}`).toBe(true)
  })
  afterAll(() => {
    for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
  })
  return roots
}

/** A fresh home (with one ordinary file), data dir and config file under the temp dir; `roots` collects it for removal. */
export function probeWorld(roots: string[], prefix = 'tg-probe-'): ProbeWorld {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  roots.push(root)
  const home = path.join(root, 'home')
  const put = (rel: string, text: string, mode?: number): string => {
    const at = path.join(home, rel)
    fs.mkdirSync(path.dirname(at), { recursive: true })
    fs.writeFileSync(at, text)
    if (mode !== undefined) fs.chmodSync(at, mode)
    return at
  }
  put('notes.txt', 'ordinary file')
  const dataDir = path.join(root, 'data')
  fs.mkdirSync(dataDir)
  const configPath = path.join(root, 'cfg', 'mcp_config.json')
  fs.mkdirSync(path.dirname(configPath))
  fs.writeFileSync(configPath, '{}')
  const signal = path.join(root, 'signal')
  fs.mkdirSync(signal)
  return { root, home, dataDir, configPath, signal, put }
}

/** The launch a server config gets in `w` (HOME = its home), or the error the plan throws. */
export function probeSpec(w: ProbeWorld, config: Partial<ServerConfig> & { command: string }) {
  return launchSpec(
    { name: 'probe', protocol: 'auto', enabled: true, trust: 'manual', ...config } as ServerConfig & { command: string },
    { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: w.home },
    { ctx: { dataDir: w.dataDir, configPath: w.configPath }, mode: 'run' },
  )
}

/**
 * Starts `config` in its sandbox; its program runs `sh -c script` (a program that is not sh
 * gets the script as arguments). Waits for READY, runs `meanwhile` on the host, lets it go on by
 * the signal file, and returns what it printed (stdout and stderr) once it exited.
 */
export async function runProbe(w: ProbeWorld, config: Partial<ServerConfig> & { command: string }, meanwhile: () => void = () => undefined): Promise<string> {
  const sb = typeof config.sandbox === 'object' ? config.sandbox : {}
  const spec = probeSpec(w, { ...config, sandbox: { network: false, ...sb, fs_read: [...(sb.fs_read ?? []), w.signal] } })
  expect(spec.mechanism).toBe('bwrap')
  const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
  const exited = new Promise((r) => child.once('exit', r))
  try {
    await vi.waitFor(() => expect(out).toMatch(/READY|bwrap:/), { timeout: 15_000 })
    meanwhile()
    fs.writeFileSync(path.join(w.signal, 'go'), '')
    await exited
  } finally {
    child.kill('SIGKILL')
    spec.cleanup()
    fs.rmSync(path.join(w.signal, 'go'), { force: true })
  }
  return out
}

/** The shell that says READY, waits for the signal file (at most 10 s), then runs `body`. */
export function waitThen(w: ProbeWorld, body: string): string {
  return `echo READY; i=0; while [ ! -e ${w.signal}/go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; ${body}`
}

/** A shell line that prints each file (or `NO <file>` when it cannot), then the listing of each folder. */
export const catAll = (files: string[], dirs: string[] = []): string =>
  [...files.map((f) => `cat '${f}' 2>/dev/null || echo "NO ${f}"; echo`), ...dirs.map((d) => `echo "LS ${d}: $(ls -A '${d}' 2>&1 | tr '\\n' ' ')"`)].join('; ')
