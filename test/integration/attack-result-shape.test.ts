// Attack on the call path with an upstream's answer (connection.ts, structured-output.ts), from
// outside: a real `toolgate serve`, a raw hostile upstream (hostile-server.mjs answers exactly what
// its state says), agents of both eras over HTTP /mcp. A tools/call answer that is not a
// CallToolResult (content not a list, a text that is not a string, isError a string) must reach the
// agent as an error, never as a result; an `isError: "false"` (a string, truthy in JavaScript) must
// not let structuredContent past the outputSchema check; and the server stays callable after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitForToolStatus, type Serve } from '../helpers/cli'
import { serveHostile } from '../helpers/hostile-serve'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, type Era, type V2Handle } from '../helpers/mcp-v2-client'
import { textOf } from '../helpers/mcp-client'

const SCHEMA = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] }
const ro = { readOnlyHint: true }
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: name, inputSchema: { type: 'object' }, annotations: ro, ...extra })

const RESULTS: Record<string, unknown> = {
  content_not_list: { content: 'SHAPE-LEAK' },
  text_not_string: { content: [{ type: 'text', text: { toString: 'SHAPE-LEAK' } }] },
  is_error_string: { content: [{ type: 'text', text: '{"celsius":"SHAPE-LEAK"}' }], structuredContent: { celsius: 'SHAPE-LEAK' }, isError: 'false' },
  fine: { content: [{ type: 'text', text: 'FINE' }] },
}

useCleanup()

describe.each<Era>(['legacy', 'modern'])('attack: a tools/call answer that is not a CallToolResult (%s era)', (era) => {
  let serve: Serve
  let agent: V2Handle

  beforeAll(async () => {
    ;({ serve } = await serveHostile(
      'toolgate-attack-result-shape-',
      { tools: [tool('content_not_list'), tool('text_not_string'), tool('is_error_string', { outputSchema: SCHEMA }), tool('fine')], results: RESULTS },
      { name: 'hs', agents: [] },
    ))
    await waitForToolStatus(serve, 'hs:fine', 'callable')
    agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, era)
  }, 60_000)

  afterAll(async () => {
    await agent?.close().catch(() => {})
    await stopServe(serve)
  })

  it.each(['content_not_list', 'text_not_string', 'is_error_string'])('%s reaches the agent as an error, nothing of it passed on', async (name) => {
    const r = await agent.call('call_tool_read', { name: `hs:${name}` })
    expect(r.isError, textOf(r)).toBe(true)
    expect(JSON.stringify(r)).not.toContain('SHAPE-LEAK')
    // and the server still answers
    const ok = await agent.call('call_tool_read', { name: 'hs:fine' })
    expect(ok.isError, textOf(ok)).toBeFalsy()
    expect(textOf(ok)).toBe('FINE')
  })
})
