// Structured output after an approved change of a tool's outputSchema under the same `$id`, from
// outside: a real `toolgate serve`, a raw upstream (hostile-server.mjs answers what its state file
// says). Each server's schemas were compiled in a validator of its own that looks a schema up by
// its `$id` first: the changed schema was never compiled, and results were checked with the old
// one until Toolgate restarted (a result valid under the new schema refused, one valid only under
// the old passed). The nested case: a `$id` inside the schema, changed the same way.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { waitForToolStatus } from '../helpers/cli'
import { serveHostile } from '../helpers/hostile-serve'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

const ID = 'https://weather.example/schemas/reading.json'

useCleanup()

const reading = (structuredContent: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent })
const tool = (outputSchema: Record<string, unknown>) => ({
  name: 'reading',
  description: 'The current reading',
  inputSchema: { type: 'object' },
  outputSchema,
  annotations: { readOnlyHint: true },
})

describe('an outputSchema changed under the same $id, the change approved', () => {
  it.each([
    {
      name: 'the root $id',
      before: { $id: ID, type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
      after: { $id: ID, type: 'object', properties: { fahrenheit: { type: 'number' } }, required: ['fahrenheit'] },
      oldOnly: { celsius: 21 },
      newOnly: { fahrenheit: 70 },
    },
    {
      name: 'a nested $id',
      before: { type: 'object', properties: { t: { $id: 'https://weather.example/schemas/t.json', type: 'number' } }, required: ['t'] },
      after: { type: 'object', properties: { t: { $id: 'https://weather.example/schemas/t.json', type: 'string' } }, required: ['t'] },
      oldOnly: { t: 21 },
      newOnly: { t: 'warm' },
    },
  ])(
    '$name: checked with the new schema: a result valid under it passes, one valid only under the old is refused',
    async ({ before, after, oldOnly, newOnly }) => {
      const upstream = (schema: Record<string, unknown>, result: unknown) => ({ tools: [tool(schema)], results: { reading: reading(result) } })
      const { serve, stateFile } = await serveHostile('toolgate-output-schema-change-', upstream(before, oldOnly), { name: 'wx', agents: [] })
      const put = (schema: Record<string, unknown>, result: unknown): void => fs.writeFileSync(stateFile, JSON.stringify(upstream(schema, result)))
      let mcp: McpHandle | undefined
      try {
        await waitForToolStatus(serve, 'wx:reading', 'callable')
        mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
        const first = await mcp.call('call_tool_read', { name: 'wx:reading', args: {} })
        expect(first.isError, textOf(first)).toBeFalsy() // the old schema is compiled now

        // the server changes the schema; the user approves the change
        put(after, newOnly)
        expect((await serve.api('POST', '/api/v1/servers/wx/restart')).status).toBe(200)
        await waitForToolStatus(serve, 'wx:reading', 'pending_approval', 30_000)
        expect((await serve.api('POST', '/api/v1/servers/wx/tools/reading/approve')).status).toBe(200)
        await waitForToolStatus(serve, 'wx:reading', 'callable')

        // before: STRUCTURED_OUTPUT_MISMATCH (checked with the old schema)
        const fresh = await mcp.call('call_tool_read', { name: 'wx:reading', args: {} })
        expect(fresh.isError, textOf(fresh)).toBeFalsy()
        expect((fresh as { structuredContent?: unknown }).structuredContent).toEqual(newOnly)

        // before: passed on (checked with the old schema)
        put(after, oldOnly)
        const stale = await mcp.call('call_tool_read', { name: 'wx:reading', args: {} })
        expect(stale.isError).toBe(true)
        expect(textOf(stale)).toMatch(/STRUCTURED_OUTPUT_MISMATCH: wx:reading answered structuredContent that does not match/)
      } finally {
        await mcp?.close()
        await stopServe(serve)
      }
    },
    120_000,
  )
})
