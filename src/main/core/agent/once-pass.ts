// "Allow once" at the call gate (issue 15): a call the gate refused because of a tool-level lock
// the user lifted for one call (disabled_by_user, pending_approval, disabled_unknown) goes
// through when the calling agent holds a pass for exactly that tool, as it was when the user allowed
// it (the pass carries the definition hash: a tool changed since is not called). The pass is taken before
// the call starts, synchronously, so of concurrent calls exactly one gets through.
import { parseToolId } from '../../../shared/ids'
import { ONCE_STATUSES } from '../../../shared/requests'
import type { Variant } from '../../../shared/call-variant'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import type { GrantKeeper } from '../grants/keeper'
import { checkVariant } from './call-gate'
import type { Scope } from './scope'

export function takeOncePass(
  catalog: Catalog,
  keeper: GrantKeeper | undefined,
  scope: Scope,
  name: unknown,
  variant: Variant,
  running: (server: string) => boolean,
): CatalogEntry | null {
  if (!keeper) return null
  const ref = parseToolId(name)
  if ('error' in ref) return null
  const entry = catalog.entry(`${ref.server}:${ref.tool}`)
  const cfg = catalog.serverConfig(ref.server)
  if (!entry || entry.hidden || !cfg || !scope.allows(entry) || catalog.serverLock(cfg)) return null
  if (!ONCE_STATUSES.has(entry.status as never) || checkVariant(entry, variant) || !running(entry.server)) return null
  return keeper.consumeOnce(scope.agent, entry.server, entry.name, entry.hash) ? entry : null
}
