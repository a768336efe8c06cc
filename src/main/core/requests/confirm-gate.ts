// The last step of the call gate (docs/confirmations.md): a call that needs the user's OK waits for it here,
// after scope, locks and variant passed and before the upstream is called. The user may answer
// long after the call arrived, so an allowed call passes the gate again as the tool is now (a
// tool switched off or rug-pulled meanwhile is refused like any other call).
import type { Variant } from '../../../shared/call-variant'
import type { BlockReason, CallOutcome } from '../../../shared/activity'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import type { CallConfirmations, ClientAsk, ConfirmResult, WaitProgress } from './confirmations'
import type { Asker } from './access'
import { checkVariant, resolveTool } from '../access/call-gate'
import type { Scope } from '../access/scope'
import { entryAccess } from '../access/decide'

/** Refused: the text the agent gets, and the outcome on the activity record (a lock found after the wait is `blocked`). */
export type ConfirmGateResult =
  { ok: true; entry: CatalogEntry } | { ok: false; text: string; outcome: Extract<CallOutcome, 'declined' | 'cancelled' | 'blocked'>; status?: BlockReason }

export async function confirmBeforeCall(
  confirmations: CallConfirmations | undefined,
  catalog: Catalog,
  scope: Scope,
  who: Asker,
  entry: CatalogEntry,
  variant: Variant,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  progress?: WaitProgress,
  clientAsk?: ClientAsk,
): Promise<ConfirmGateResult> {
  if (!confirmations) return { ok: true, entry }
  return afterConfirm(catalog, scope, entry, variant, await confirmations.confirm(who, entry, variant, args, signal, progress, clientAsk))
}

/** The gate's last step once the user's answer is known: a call allowed after a wait passes the gate again as the tool is now. */
export function afterConfirm(catalog: Catalog, scope: Scope, entry: CatalogEntry, variant: Variant, r: ConfirmResult): ConfirmGateResult {
  if (!r.go) return { ok: false, text: r.text, outcome: r.confirmation?.status === 'cancelled' ? 'cancelled' : 'declined' }
  if (!r.confirmation) return { ok: true, entry }
  // unchanged since the call arrived (an "Allow once" pass included): go on
  const now = catalog.entry(entry.id)
  const unchanged = now !== undefined && now.hash === entry.hash && now.status === entry.status
  if (unchanged) {
    const a = entryAccess(catalog, scope, now)
    if (a.kind === 'callable' || (a.kind === 'blocked' && a.once)) return { ok: true, entry: now }
  }
  const again = resolveTool(catalog, scope, entry.id)
  if (!again.ok) return { ok: false, text: again.message, outcome: 'blocked', ...(again.reason ? { status: again.reason } : {}) }
  const wrong = checkVariant(again.entry, variant)
  return wrong ? { ok: false, text: wrong, outcome: 'blocked', status: 'wrong_variant' } : { ok: true, entry: again.entry }
}
