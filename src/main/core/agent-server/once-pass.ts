// "Allow once" at the call gate (docs/requests.md): a call the gate refused because of a tool-level lock
// the user lifted for one call (disabled_by_user, pending_approval, disabled_unknown: the access
// decision's `once`) goes through when the calling agent holds a pass for exactly that tool, as it
// was when the user allowed it (the pass carries the definition hash: a tool changed since is not
// called). The pass is taken before the call starts, synchronously, so of concurrent calls exactly
// one gets through.
import type { Variant } from '../../../shared/call-variant'
import type { CatalogEntry } from '../catalog/catalog'
import type { GrantKeeper } from '../grants/keeper'
import type { Access } from '../access/decide'
import type { Scope } from '../access/scope'
import { checkVariant } from '../access/call-gate'

export function takeOncePass(
  keeper: GrantKeeper | undefined,
  scope: Scope,
  access: Access,
  variant: Variant,
  running: (server: string) => boolean,
): CatalogEntry | null {
  if (!keeper || access.kind !== 'blocked' || !access.once || !access.entry) return null
  const entry = access.entry
  if (checkVariant(entry, variant) || !running(entry.server)) return null
  return keeper.consumeOnce(scope.agent, entry.server, entry.name, entry.hash) ? entry : null
}
