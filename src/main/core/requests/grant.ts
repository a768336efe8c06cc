// Granting a request performs the acts the user would perform by hand, in order, through the one
// decision path (catalog/decisions.ts): switch the server on, approve the server, re-enable the
// tool, approve the tool. With a TimedAct each act records its undo in the same grant, so the
// grant's end puts everything back together.
import { toolId } from '../../../shared/ids'
import type { Catalog } from '../catalog/catalog'
import { approveServer, approveTool, setServerEnabled, setToolDisabled } from '../catalog/decisions'
import type { TimedAct } from '../grants/undo'

export interface LiftContext {
  catalog: Catalog
  config: { path: string; reload(): void }
  syncUpstreams(): void
}

/** Lifts every lock a user can lift on server:tool; returns what was done, in words. `expectedLaunch`: the launch_hash the user reviewed, when the server is approved. */
export async function liftLocks(ctx: LiftContext, server: string, tool: string, timed?: TimedAct, expectedLaunch?: string): Promise<string[]> {
  const { catalog } = ctx
  const done: string[] = []
  const cfg = catalog.serverConfig(server)
  if (cfg && !cfg.enabled) done.push(await setServerEnabled(catalog, ctx.config, server, true, timed))
  const now = catalog.serverConfig(server)
  if (now && catalog.quarantineOf(now) !== null) {
    done.push(await approveServer(catalog, server, timed, expectedLaunch))
    ctx.syncUpstreams()
  }
  const e = catalog.entry(toolId(server, tool))
  if (e?.facts.userDisabled) done.push(await setToolDisabled(catalog, server, tool, false, timed))
  const after = catalog.entry(toolId(server, tool))
  if (after && after.approval !== 'approved' && !after.facts.serverQuarantined) done.push(await approveTool(catalog, server, tool, timed))
  return done
}
