// inspectUpstream: connect once, list the tools (and what the caller lists besides), disconnect — for reviewing a quarantined server
// without starting it for real. No supervision, no retries; the stdio child is gone on return.
import type { ServerConfig } from '../../../shared/config-schema'
import { serverLogger } from './log'
import { resolveReferences } from '../secrets/resolve'
import { openConnection } from './open'
import type { UpstreamConnection } from './connection'
import { DEFAULT_CONNECT_TIMEOUT_MS } from './types'
import type { UpstreamOptions } from './types'
import type { ToolDefinition } from '../../../shared/tool-definition'
import { defaultSandboxContext } from './sandbox/launch'
import { launcherOf } from './sandbox/registries'

/** How long Inspect waits for a server started by npx/uvx: the first start downloads it. */
export const LAUNCHER_INSPECT_TIMEOUT_MS = 180_000

/**
 * A stdio server is inspected in the sandbox whatever its own permissions say (even with
 * `sandbox: false`): no network unless `network` is set (an npx/uvx server: its package registry
 * only), nothing writable but its private temp dir and its own package caches.
 */
/** How long an Inspect waits for the server's list of tools: an npx/uvx launch may first download its package. */
export function inspectTimeoutMs(config: ServerConfig): number {
  return launcherOf(config) ? LAUNCHER_INSPECT_TIMEOUT_MS : DEFAULT_CONNECT_TIMEOUT_MS
}

export async function inspectUpstream(
  config: ServerConfig,
  opts: UpstreamOptions & {
    timeoutMs?: number
    network?: boolean
    /** runs once the tools are listed, before the connection closes: what else the review lists (its prompts and resource templates: control/inspect.ts) */
    alsoList?: (conn: Pick<UpstreamConnection, 'relay' | 'capabilities' | 'listPrompts'>, timeoutMs: number) => Promise<void>
  },
): Promise<ToolDefinition[]> {
  // npx/uvx download the package (and its dependencies) first, into an empty cache the first time
  const timeoutMs = opts.timeoutMs ?? opts.connectTimeoutMs ?? inspectTimeoutMs(config)
  const log = serverLogger(opts.logger, config.name)
  log.info({ network: opts.network === true }, 'inspecting upstream')
  const sandbox = { ctx: opts.sandbox?.ctx ?? defaultSandboxContext(), mode: opts.network ? ('inspect-network' as const) : ('inspect' as const) }
  // ${secret:…}/${env:…} resolved before the sandbox builds its command line
  const resolved = resolveReferences(config, opts.references)
  if (!resolved.ok) throw new Error(`inspecting server "${config.name}" failed: ${resolved.error}`)
  // Inspect runs the program: the organisation's policy judges it like a start
  const blocked = opts.launchCheck?.(resolved.config) ?? null
  if (blocked) throw new Error(`inspecting server "${config.name}" refused: ${blocked}`)
  const auth = opts.oauth?.sessionFor(resolved.config) ?? null
  const conn = await openConnection(
    resolved.config,
    { logger: log, limits: opts.limits, timeoutMs, sandbox, secretValues: resolved.secretValues, auth },
    { onClosed: () => undefined, onToolListChanged: () => undefined },
  ).catch((err: unknown) => {
    // an OAuth-protected server is listed for review only after sign-in
    if (auth?.needsSignIn) throw auth.needsSignIn
    if (auth?.refused) throw new Error(`inspecting server "${config.name}" failed: ${auth.refused.message}`)
    throw new Error(`inspecting server "${config.name}" failed: ${err instanceof Error ? err.message : String(err)}`)
  })
  try {
    let listing
    try {
      listing = await conn.listTools(timeoutMs)
    } catch (err) {
      throw new Error(`inspecting server "${config.name}" failed: tools/list: ${err instanceof Error ? err.message : String(err)}`)
    }
    for (const w of listing.warnings) log.warn(`upstream ${w}`)
    await opts.alsoList?.(conn, timeoutMs)
    return listing.tools
  } finally {
    await conn.close()
  }
}
