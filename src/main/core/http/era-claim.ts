// The era of a request without a session, told cheaply where the answer is certain. The SDK's
// isLegacyRequest classifies a body with schema parses (isJSONRPCRequest, the envelope's check)
// and createMcpHandler classifies the same body again before serving it: a 2026-07-28 call paid
// for both. A body that carries the envelope claim is one the SDK never calls legacy (its
// classifyInboundRequest, 2.4.0): not an array (a batch), not a response (those schemas are
// strict and have no `method`), not an initialize (the one method it may call legacy with a
// claim); as a request or a notification with the claim it is modern or refused by the modern
// path, and as neither it is refused by the modern path too. Every other body is still asked of
// the SDK. test/unit/era-claim.test.ts holds this against isLegacyRequest on generated bodies.
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server'

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** True only for a body the SDK routes to its 2026-07-28 path (served or refused there), never to legacy. */
export function claimsModernEra(body: unknown): boolean {
  if (!isPlainObject(body)) return false
  const method = body.method
  if (typeof method !== 'string' || method === 'initialize') return false
  const params = body.params
  if (!isPlainObject(params)) return false
  const meta = params._meta
  return isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta
}
