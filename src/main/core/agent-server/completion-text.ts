// What an agent reads of a server's completion/complete answer (docs/passthrough.md): at most 100
// values (the protocol's cap), strings only, each on one escaped line (resource-text.ts `oneLine`:
// no line breaks, no bidi or invisible characters), `total` only as a count and `hasMore` only as
// a boolean. Upstream text is untrusted: a completion value is read by the agent like listed text.
import { MAX_RESOURCE_DESCRIPTION_CHARS, oneLine } from './resource-text'

/** The most values one completion answer may carry (MCP spec, `completion/complete`). */
export const MAX_COMPLETION_VALUES = 100

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A server's completion result as an agent gets it. */
export function agentCompletion(result: unknown): { completion: { values: string[]; total?: number; hasMore?: boolean } } {
  const c = isRecord(result) && isRecord(result.completion) ? result.completion : {}
  const raw = Array.isArray(c.values) ? c.values.filter((v): v is string => typeof v === 'string') : []
  const values = raw.slice(0, MAX_COMPLETION_VALUES).map((v) => oneLine(v, MAX_RESOURCE_DESCRIPTION_CHARS))
  const out: { values: string[]; total?: number; hasMore?: boolean } = { values }
  if (typeof c.total === 'number' && Number.isSafeInteger(c.total) && c.total >= values.length) out.total = c.total
  if (raw.length > values.length) out.hasMore = true
  else if (typeof c.hasMore === 'boolean') out.hasMore = c.hasMore
  return { completion: out }
}
