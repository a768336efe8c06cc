// An agent over raw HTTP /mcp in the 2026-07-28 era: its token minted by `toolgate agents token`,
// the per-request `_meta` envelope, and one tools/call answered as JSON or as an SSE stream.
import { rawRequest, runCli, type Serve } from './cli'

/** The `_meta` envelope of a 2026-07-28 client that can show form questions. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
}

/** A parsed JSON-RPC answer. */
export interface Rpc {
  result?: Record<string, unknown>
  error?: { code: number; message: string }
}

/** Mints a token for `agent` with the real CLI (`toolgate agents token`): its first output line. */
export async function agentToken(serve: Serve, agent: string): Promise<string> {
  return (await runCli(['agents', 'token', agent, ...serve.flags])).stdout.trim().split('\n')[0].trim()
}

/** One raw 2026-07-28 tools/call to `endpoint` with `token` and `envelope` as `_meta`: the parsed JSON-RPC answer
 * (a JSON body, or the last `data:` line of an SSE body). */
export async function modernToolsCall(
  serve: Serve,
  token: string,
  id: number,
  params: Record<string, unknown>,
  envelope: Record<string, unknown> = MODERN_ENVELOPE,
  endpoint: '/mcp' | '/mcp/direct' = '/mcp',
): Promise<Rpc> {
  const r = await rawRequest(`${serve.url}${endpoint}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta: envelope } }),
  })
  const text = r.body.trim()
  const json = text.startsWith('{')
    ? text
    : (
        text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .at(-1) ?? ''
      ).slice(5)
  return JSON.parse(json) as Rpc
}
