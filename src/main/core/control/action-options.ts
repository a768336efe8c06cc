// The options of a server, tool or prompt action (docs/control-api.md): only the ones the table of
// operations gives that action, and `for` read as a time-boxed grant.
import { ApiError } from '../../../shared/api'
import { parseGrantFor, type GrantFor } from '../../../shared/grant-for'
import { actionsTaking } from '../../../shared/actions'
import type { TimedAct } from '../state/grant-undo'
import { newId } from '../requests/pending'

/** `for` of an enable/approve action: nothing (permanent), "always", or a duration; "once" answers requests only. */
export function timedAct(action: string, raw: string | undefined): TimedAct | undefined {
  if (raw === undefined) return undefined
  const g: GrantFor | { error: string } = parseGrantFor(raw)
  if ('error' in g) throw new ApiError('invalid_arguments', g.error, 400)
  if (g.kind === 'once')
    throw new ApiError('invalid_arguments', `"once" answers an agent's access request; ${action} takes a duration like "1h" or "always"`, 400)
  if (g.kind === 'always') return undefined
  return { id: newId('g'), until: new Date(Date.now() + g.ms).toISOString() }
}

/** Refuses an option the action does not take (the table of operations says which take which), e.g. `for` on disable. */
export function onlyOptionsOf<A extends string, K extends string>(
  table: Readonly<Record<A, readonly K[]>>,
  action: A,
  options: Partial<Record<K, unknown>>,
): void {
  for (const key of Object.keys(options) as K[]) {
    if (options[key] === undefined || table[action].includes(key)) continue
    const what = key === 'hash' ? '"hash" (the hash you reviewed)' : `"${key}"`
    throw new ApiError('invalid_arguments', `${what} applies to ${actionsTaking(table, key)} only, not ${action}`, 400)
  }
}
