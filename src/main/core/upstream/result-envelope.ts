// What of a server's result is about this hop of the protocol, not the answer: taken off before an agent gets it.

/** The protocol's own `_meta` keys (`io.modelcontextprotocol/…`, e.g. the server's identity) describe this hop, not the tool's answer. */
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/'

/**
 * A result's keys that are about this hop of the 2026-07-28 protocol, not the answer: whether it is
 * a question (`resultType`, `inputRequests`, `requestState`) and how long it may be kept by whom
 * (`ttlMs`, `cacheScope`). Toolgate answers its agents with its own: a server's would pose as
 * Toolgate's question outside the relay of server questions, or let a cache share an answer that
 * the agent's credential decides.
 */
const HOP_KEYS = new Set(['resultType', 'inputRequests', 'requestState', 'ttlMs', 'cacheScope'])

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A result without this hop's keys: its envelope keys in `_meta` (the rest of `_meta` passes through) and HOP_KEYS. */
export function withoutEnvelope<R extends object>(result: R): R {
  const meta = (result as { _meta?: unknown })._meta
  const envelope = isRecord(meta) && Object.keys(meta).some((k) => k.startsWith(ENVELOPE_PREFIX))
  if (!envelope && !Object.keys(result).some((k) => HOP_KEYS.has(k))) return result
  const rest = Object.fromEntries(Object.entries(result).filter(([k]) => !HOP_KEYS.has(k) && k !== '_meta'))
  if (!isRecord(meta)) return (meta === undefined ? rest : { ...rest, _meta: meta }) as R
  const kept = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith(ENVELOPE_PREFIX)))
  return (Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest) as R
}
