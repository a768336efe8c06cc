// Granting a request performs the acts the user would perform by hand, in order, through the one
// decision path (catalog/decisions.ts), and only those the user saw the review of: a grant for a
// server that is off or in quarantine switches it on and approves it (the launch on screen); a
// grant for a tool of a running server re-enables it and approves it (the definition on screen).
// A server-level grant never approves a tool definition nobody showed: a tool that still waits
// for review after the server is open stays locked until it is reviewed on its own. With a
// TimedAct each act records its undo in the same grant, so the grant's end puts everything back.
import { toolId } from '../../../shared/ids'
import type { Catalog } from '../catalog/catalog'
import { approveTool, setToolDisabled } from '../catalog/decisions'
import { approveServer, setServerEnabled } from '../catalog/server-decisions'
import type { TimedAct } from '../state/grant-undo'

export interface LiftContext {
  catalog: Catalog
  config: { path: string; reload(): void }
  syncUpstreams(): void
}

/** Whether a grant on this server acts on the server (it is off or in quarantine): its review is the launch, its hash the launch_hash. */
export function grantsServer(catalog: Catalog, server: string): boolean {
  const cfg = catalog.serverConfig(server)
  return cfg !== undefined && catalog.serverLock(cfg) !== null
}

/**
 * Lifts the locks the user reviewed on server:tool; returns what was done, in words. `expected`:
 * the hash the user reviewed — the launch_hash when the grant acts on the server, the tool's
 * definition hash when it acts on the tool (a stale one is refused before anything is done).
 */
export async function liftLocks(ctx: LiftContext, server: string, tool: string, timed?: TimedAct, expected?: string): Promise<string[]> {
  const { catalog } = ctx
  const done: string[] = []
  const id = toolId(server, tool)
  if (grantsServer(catalog, server)) {
    const cfg = catalog.serverConfig(server)
    if (cfg && !cfg.enabled) done.push(await setServerEnabled(catalog, ctx.config, server, true, timed))
    const now = catalog.serverConfig(server)
    if (now && catalog.quarantineOf(now) !== null) {
      done.push(await approveServer(catalog, server, timed, expected))
      ctx.syncUpstreams()
    }
    const after = catalog.entry(id)
    if (after && !after.hidden && after.status !== 'callable' && after.status !== 'server_disabled' && after.status !== 'server_quarantined') {
      done.push(
        `${id} itself stays locked (${after.status}): its definition was not part of this review; review it on its own (the Servers view, or \`toolgate tools approve ${id}\`).`,
      )
    }
    return done
  }
  const e = catalog.entry(id)
  if (e?.facts.userDisabled) done.push(await setToolDisabled(catalog, server, tool, false, timed))
  const after = catalog.entry(id)
  if (after && after.approval !== 'approved' && !after.facts.serverQuarantined) done.push(await approveTool(catalog, server, tool, timed, expected))
  return done
}
