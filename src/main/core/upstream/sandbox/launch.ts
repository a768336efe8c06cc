// How a stdio upstream is started: through the machine's sandbox (bwrap or sandbox-exec) with
// the plan of its config and mode, or directly when the operator opted out or the platform has
// no sandbox. The transport calls this and spawns what it returns.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ServerConfig } from '../../../../shared/config-schema'
import { resolveConfigPath, resolveDataDir } from '../../paths'
import { bwrapArgs } from './bwrap'
import { sandboxSupport, type SandboxSupport } from './detect'
import { buildPlan, CACHE_DIRS, currentPlanEnv, real, type SandboxContext, type SandboxMode } from './plan'
import { seatbeltProfile } from './seatbelt'

/** What the transport needs to start an upstream in a sandbox (absent = the default data dir). */
export interface SandboxRequest {
  ctx: SandboxContext
  mode: SandboxMode
}

export interface LaunchSpec {
  command: string
  args: string[]
  env: Record<string, string>
  cwd?: string
  /** bwrap | sandbox-exec, or null when started directly */
  mechanism: SandboxSupport['mechanism']
  /** removes what the launch created (macOS: the private temp dir); call once the process is gone */
  cleanup(): void
}

export function defaultSandboxContext(): SandboxContext {
  const dataDir = resolveDataDir(undefined)
  return { dataDir, configPath: resolveConfigPath(dataDir, undefined) }
}

/** Whether this config and mode run in the sandbox (inspect always does, whatever the config says). */
export function wantsSandbox(config: ServerConfig, mode: SandboxMode): boolean {
  return mode !== 'run' || config.sandbox !== false
}

export function launchSpec(
  config: ServerConfig & { command: string },
  env: Record<string, string>,
  req: SandboxRequest | undefined,
  support: SandboxSupport = sandboxSupport(),
): LaunchSpec {
  const mode = req?.mode ?? 'run'
  const direct: LaunchSpec = { command: config.command, args: config.args ?? [], env, cwd: config.cwd, mechanism: null, cleanup: () => undefined }
  if (!wantsSandbox(config, mode) || !support.available || !support.binary) return direct
  // bwrap would only say "execvp: No such file" after starting: fail the way a direct spawn does.
  if (!findCommand(config.command, env.PATH ?? '', config.cwd)) {
    throw Object.assign(new Error(`spawn ${config.command} ENOENT (no such command${config.command.includes('/') ? '' : ' on PATH'})`), { code: 'ENOENT' })
  }
  const ctx = req?.ctx ?? defaultSandboxContext()
  const planEnv = currentPlanEnv()
  ensureCaches(env.HOME ?? planEnv.home)
  const home = env.HOME ? path.resolve(env.HOME) : planEnv.home
  const plan = buildPlan(config, ctx, mode, { ...planEnv, home, homes: [...new Set([...planEnv.homes, real(home)])] })
  if (support.mechanism === 'bwrap') {
    return {
      ...direct,
      command: support.binary,
      args: bwrapArgs(plan, config.command, config.args ?? [], emptyFile(ctx.dataDir)),
      mechanism: 'bwrap',
    }
  }
  const tmp = real(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-sbx-')))
  return {
    ...direct,
    command: support.binary,
    args: ['-p', seatbeltProfile(plan, tmp), config.command, ...(config.args ?? [])],
    env: { ...env, TMPDIR: tmp },
    mechanism: 'sandbox-exec',
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  }
}

function findCommand(command: string, envPath: string, cwd: string | undefined): boolean {
  const executable = (p: string): boolean => {
    try {
      fs.accessSync(p, fs.constants.X_OK)
      return fs.statSync(p).isFile()
    } catch {
      return false
    }
  }
  if (command.includes('/')) return executable(path.resolve(cwd ?? process.cwd(), command))
  return envPath.split(path.delimiter).some((dir) => dir !== '' && executable(path.resolve(cwd ?? process.cwd(), dir, command)))
}

/** The caches must exist to be bound writable (a read-only home cannot grow them later). */
function ensureCaches(home: string): void {
  for (const c of CACHE_DIRS) {
    try {
      if (fs.statSync(home).isDirectory()) fs.mkdirSync(path.join(home, c), { recursive: true, mode: 0o700 })
    } catch {
      // no home, or not ours: the server simply has no cache
    }
  }
}

/** An empty read-only file in the data dir: what a hidden file reads as. Falls back to /dev/null. */
function emptyFile(dataDir: string): string {
  const file = path.join(dataDir, 'sandbox-empty')
  try {
    if (fs.statSync(file).size === 0) return file
  } catch {
    // create it below
  }
  try {
    fs.mkdirSync(dataDir, { recursive: true })
    fs.writeFileSync(file, '', { mode: 0o444 })
    return file
  } catch {
    return '/dev/null'
  }
}
