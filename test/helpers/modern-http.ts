// An agent over raw HTTP /mcp in the 2026-07-28 era: its token minted by `toolgate agents token`,
// the per-request `_meta` envelope, one request of any method with the standard headers (for the
// tests that craft the wire themselves), its JSON-RPC answer (JSON or an SSE stream), and tools/call.
import { rawRequest, runCli, type RawResponse, type Serve } from './cli'

/** The `_meta` envelope of a 2026-07-28 client that can show form questions. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
}

/** The `_meta` envelope of a bare 2026-07-28 client: no capabilities (it shows no questions), no client info. */
export const MODERN_BARE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

/** A parsed JSON-RPC answer. */
export interface Rpc {
  result?: Record<string, unknown>
  error?: { code: number; message: string }
}

/** Mints a token for `agent` with the real CLI (`toolgate agents token`): its first output line. */
export async function agentToken(serve: Serve, agent: string): Promise<string> {
  return (await runCli(['agents', 'token', agent, ...serve.flags])).stdout.trim().split('\n')[0].trim()
}

export interface ModernPostOptions {
  /** the JSON-RPC id (1) */
  id?: number
  /** `params._meta` (MODERN_ENVELOPE) */
  envelope?: Record<string, unknown>
  /** the path (/mcp) */
  endpoint?: string
  /** the Mcp-Name header; a value that is not plain printable ASCII goes as the spec's base64 sentinel */
  name?: string
  /** headers over the standard ones; `undefined` leaves a standard one out */
  headers?: Record<string, string | undefined>
}

/** One raw 2026-07-28 JSON-RPC request of any `method` with `bearer` and the standard headers: the HTTP response as it came. */
export async function modernPost(
  serve: { url: string },
  bearer: string,
  method: string,
  params: Record<string, unknown>,
  o: ModernPostOptions = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = {}
  const standard = {
    authorization: `Bearer ${bearer}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(o.name !== undefined ? { 'mcp-name': headerValue(o.name) } : {}),
    ...o.headers,
  }
  for (const [k, v] of Object.entries(standard)) if (v !== undefined) headers[k] = v
  return rawRequest(`${serve.url}${o.endpoint ?? '/mcp'}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: o.id ?? 1, method, params: { ...params, _meta: o.envelope ?? MODERN_ENVELOPE } }),
  })
}

/** A header value as sent: plain printable ASCII as it is, anything else as `=?base64?…?=` (the 2026-07-28 spec's sentinel). */
function headerValue(v: string): string {
  return /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(v) ? v : `=?base64?${Buffer.from(v).toString('base64')}?=`
}

/** The JSON-RPC answer in a response body: a JSON body, or the last `data:` line of an SSE body. Throws when that is not JSON. */
export function answerOf<T = Rpc>(body: string): T {
  const text = body.trim()
  const json = text.startsWith('{')
    ? text
    : (
        text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .at(-1) ?? ''
      ).slice(5)
  return JSON.parse(json) as T
}

/** One raw 2026-07-28 tools/call to `endpoint` with `token` and `envelope` as `_meta`: the parsed JSON-RPC answer. */
export async function modernToolsCall(
  serve: Serve,
  token: string,
  id: number,
  params: Record<string, unknown>,
  envelope: Record<string, unknown> = MODERN_ENVELOPE,
  endpoint: '/mcp' | '/mcp/direct' = '/mcp',
): Promise<Rpc> {
  return answerOf((await modernPost(serve, token, 'tools/call', params, { id, envelope, endpoint, name: String(params.name) })).body)
}
