// claimsModernEra (http/era-claim.ts) lets McpEndpoint skip the SDK's isLegacyRequest for a body
// that carries the 2026-07-28 envelope claim. That is only sound if the SDK never calls such a body
// legacy: generated bodies (requests, notifications, responses, initialize, batches, with claims
// valid, invalid and naming old revisions, beside every header the classifier reads) are put to
// the SDK's own isLegacyRequest, and every body claimsModernEra says yes to must be one the SDK
// routes to its modern path. The generator also makes bodies the SDK does call legacy with a claim
// (an initialize whose claim is not a valid modern one), so a claimsModernEra that forgot them fails.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isLegacyRequest, PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY } from '@modelcontextprotocol/server'
import { claimsModernEra } from '../../src/main/core/http/era-claim'

const revision = fc.constantFrom('2026-07-28', '2025-11-25', '2025-06-18', '1999-01-01', '', 'garbage')
const claimValue = fc.oneof(revision, fc.constant(7), fc.constant(null), fc.constant({ v: 1 }))

/** A _meta: the claim (of any value) or not, the rest of the envelope or parts of it, other keys. */
const meta = fc.record(
  {
    claim: fc.option(claimValue, { nil: undefined }),
    caps: fc.option(fc.constantFrom<unknown>({}, { elicitation: {} }, 'caps', null), { nil: undefined }),
    info: fc.option(fc.constantFrom<unknown>({ name: 'c', version: '1' }, { name: 3 }, 'x'), { nil: undefined }),
    progressToken: fc.option(fc.constantFrom<unknown>('p', 1), { nil: undefined }),
  },
  { requiredKeys: [] },
)
const metaObject = meta.map((m) => ({
  ...(m.claim !== undefined ? { [PROTOCOL_VERSION_META_KEY]: m.claim } : {}),
  ...(m.caps !== undefined ? { [CLIENT_CAPABILITIES_META_KEY]: m.caps } : {}),
  ...(m.info !== undefined ? { [CLIENT_INFO_META_KEY]: m.info } : {}),
  ...(m.progressToken !== undefined ? { progressToken: m.progressToken } : {}),
}))
const params = fc.oneof(
  fc.constant(undefined),
  fc.constant('params'),
  fc.constant([1]),
  metaObject.map((_meta) => ({ _meta })),
  metaObject.map((_meta) => ({ _meta, name: 'call_tool_read', arguments: { name: 's:t' } })),
  metaObject.map((_meta) => ({ _meta, protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })),
  fc.constant({ _meta: 'not an object' }),
  fc.constant({ _meta: [PROTOCOL_VERSION_META_KEY] }),
)
const method = fc.constantFrom<unknown>(
  'tools/call',
  'tools/list',
  'initialize',
  'server/discover',
  'subscriptions/listen',
  'notifications/initialized',
  'notifications/cancelled',
  'no/such',
  7,
  undefined,
)
const id = fc.constantFrom<unknown>(1, 'a', 1.5, null, { x: 1 }, undefined)
const message = fc
  .record({
    jsonrpc: fc.constantFrom<unknown>('2.0', '1.0', undefined),
    id,
    method,
    params,
    result: fc.option(fc.constant({}), { nil: undefined, freq: 2 }),
    error: fc.option(fc.constant({ code: -1, message: 'e' }), { nil: undefined, freq: 2 }),
    extra: fc.option(fc.constant(true), { nil: undefined, freq: 2 }),
  })
  .map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)))
/** Well-formed requests and notifications of every method, with a _meta of any kind: most claims are here. */
const wellFormed = fc
  .record({
    id: fc.constantFrom<unknown>(1, 'a', undefined),
    method: fc.constantFrom('tools/call', 'initialize', 'server/discover', 'notifications/cancelled'),
    params,
  })
  .map(({ id, method, params }) => ({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), method, ...(params !== undefined ? { params } : {}) }))
const body = fc.oneof(
  { weight: 6, arbitrary: wellFormed },
  { weight: 6, arbitrary: message },
  { weight: 2, arbitrary: fc.array(message, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 42, 'tools/list', true) },
)
const headers = fc.record(
  {
    'mcp-protocol-version': fc.constantFrom('2026-07-28', '2025-11-25', ' 2026-07-28 ', '2026-07-28, 2025-11-25', 'x'),
    'mcp-method': fc.constantFrom('tools/call', 'tools/list', 'initialize'),
    'mcp-name': fc.constantFrom('call_tool_read', 'x'),
  },
  { requiredKeys: [] },
)

const legacyBySdk = (b: unknown, h: Record<string, string>): Promise<boolean> =>
  isLegacyRequest(new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-type': 'application/json', ...h } }), b)

describe('claimsModernEra: a body the SDK never routes to legacy', () => {
  it('says yes only to bodies the SDK routes to its 2026-07-28 path, whatever the headers', async () => {
    let yes = 0
    let legacyClaims = 0
    await fc.assert(
      fc.asyncProperty(body, headers, async (b, h) => {
        const legacy = await legacyBySdk(b, h)
        const claimed = claimsModernEra(b)
        if (claimed) {
          yes++
          expect(legacy, JSON.stringify({ b, h })).toBe(false)
        }
        const m = b as { params?: { _meta?: Record<string, unknown> } } | null
        if (legacy && typeof m?.params?._meta === 'object' && m.params._meta !== null && PROTOCOL_VERSION_META_KEY in m.params._meta) legacyClaims++
      }),
      { numRuns: 4000, seed: 2026_07_28 },
    )
    // it looked at something: claims it took, and claims the SDK calls legacy (initialize), which it must leave
    expect(yes).toBeGreaterThan(500)
    expect(legacyClaims).toBeGreaterThan(20)
  })

  it('takes the claims of an ordinary 2026-07-28 call and leaves every claimless body to the SDK', async () => {
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: {}, _meta: { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_CAPABILITIES_META_KEY]: {} } },
    }
    expect(claimsModernEra(call)).toBe(true)
    expect(await legacyBySdk(call, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'call_tool_read' })).toBe(false)
    const { _meta: _, ...claimless } = call.params
    expect(claimsModernEra({ ...call, params: claimless })).toBe(false)
    expect(claimsModernEra([call])).toBe(false)
    expect(claimsModernEra({ ...call, method: 'initialize' })).toBe(false)
  })
})
