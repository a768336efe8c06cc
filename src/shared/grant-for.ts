// `for` of a grant (docs/requests.md): "once" (one call by the asking agent), "always", or a duration
// "<n>s|m|h" ("30s", "1h", "8h") after which the tool or server returns to its previous state.
// One parser for the control API, IPC, the CLI's --for and request_access answers.
import { z } from 'zod'

export type GrantFor = { kind: 'once' } | { kind: 'always' } | { kind: 'timed'; ms: number; text: string }

/** The longest time-boxed grant: 30 days. Longer is "always". */
export const GRANT_MAX_MS = 30 * 24 * 3_600_000
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const

export const GRANT_FOR_HELP = 'for must be "once", "always", or a duration like "30s", "10m", "1h", "8h" (1 second to 720 hours)'

/** Parses a `for` value; an error sentence instead of throwing. */
export function parseGrantFor(v: unknown): GrantFor | { error: string } {
  if (v === 'once' || v === 'always') return { kind: v }
  if (typeof v !== 'string') return { error: GRANT_FOR_HELP }
  const m = /^(\d{1,7})([smh])$/.exec(v)
  if (!m) return { error: `${GRANT_FOR_HELP}; got ${JSON.stringify(v.slice(0, 40))}` }
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
  if (ms < 1000 || ms > GRANT_MAX_MS) return { error: `${GRANT_FOR_HELP}; got "${v}"` }
  return { kind: 'timed', ms, text: v }
}

/** `for` of a request grant as a zod schema: the text as given ("once", "always", "1h"), checked. */
export const GrantForTextSchema = z.string({ error: GRANT_FOR_HELP }).superRefine((v, ctx) => {
  const g = parseGrantFor(v)
  if ('error' in g) ctx.addIssue({ code: 'custom', message: g.error })
})

/** `for` of enable/approve: a duration or "always"; "once" answers requests only. */
export const TimedForSchema = GrantForTextSchema.superRefine((v, ctx) => {
  if (v === 'once') ctx.addIssue({ code: 'custom', message: '"once" answers an agent\'s access request; give a duration like "1h" or "always"' })
})

/** The `launch_hash` the user reviewed, sent back with approve and inspect. */
export const LaunchHashSchema = z.string({ error: 'hash must be a string: the launch_hash you reviewed' }).min(1, 'hash must not be empty')

/** The hash of what a grant acts on, as the user reviewed it: the server's launch_hash, or the tool's definition hash. */
export const ReviewedHashSchema = z
  .string({ error: 'hash must be a string: the launch_hash (server) or definition_hash (tool) you reviewed' })
  .min(1, 'hash must not be empty')

/** "1 hour", "30 minutes", "45 seconds", "2 hours 30 minutes". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  const part = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`
  if (h > 0) return m > 0 ? `${part(h, 'hour')} ${part(m, 'minute')}` : part(h, 'hour')
  if (m > 0) return sec > 0 && m < 5 ? `${part(m, 'minute')} ${part(sec, 'second')}` : part(m, 'minute')
  return part(sec, 'second')
}

/** What the UI shows for a grant that ends at `until`: "1 hour 5 minutes left", "expiring". */
export function timeLeft(until: string, now: number): string {
  const ms = Date.parse(until) - now
  return ms <= 0 ? 'expiring' : `${formatDuration(ms)} left`
}

/** A GrantFor as the text it was given in ("once", "always", "1h"). */
export function grantForText(g: GrantFor): string {
  return g.kind === 'timed' ? g.text : g.kind
}
