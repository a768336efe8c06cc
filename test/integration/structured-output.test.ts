// Structured output, from outside (a real `toolgate serve`, agents of both eras
// over HTTP /mcp, a real upstream with an outputSchema): retrieve_tools and describe_tool carry the
// approved outputSchema; structuredContent that matches it passes through; a result that does not
// match (or has none) becomes an error result naming the mismatch, and nothing of it passes.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, startServe, tempDir, waitForServerState, waitForToolStatus, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, type Era, type V2Handle } from '../helpers/mcp-v2-client'
import { jsonOf, textOf } from '../helpers/mcp-client'

const SERVER = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')
const OUTPUT_SCHEMA = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] }

useCleanup()

describe.each<Era>(['legacy', 'modern'])('structured output (%s era)', (era) => {
  let serve: Serve
  let agent: V2Handle

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-structured-')
    const state = path.join(tmp, 'pt.json')
    fs.writeFileSync(state, JSON.stringify({}))
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { pt: { command: process.execPath, args: [SERVER], env: { PASSTHROUGH_STATE: state }, quarantined: false, sandbox: { fs_read: [tmp] } } },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'pt', 'connected')
    await waitForToolStatus(serve, 'pt:structured', 'callable')
    agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, era)
  }, 60_000)

  afterAll(async () => {
    await agent?.close().catch(() => {})
    await stopServe(serve)
  })

  it('retrieve_tools and describe_tool carry the approved outputSchema', async () => {
    const found = jsonOf<{ tools: Array<Record<string, unknown>> }>(await agent.call('retrieve_tools', { query: 'structured content output schema' }))
    const entry = found.tools.find((t) => t.name === 'pt:structured') as Record<string, unknown>
    expect(entry.outputSchema).toEqual(OUTPUT_SCHEMA)
    expect(Object.keys(entry).slice(0, 5)).toEqual(['name', 'server', 'description', 'inputSchema', 'outputSchema'])
    // a tool without one has no key
    expect(Object.keys(found.tools.find((t) => t.name === 'pt:links') ?? {})).not.toContain('outputSchema')
    expect(jsonOf(await agent.call('describe_tool', { name: 'pt:structured' })).outputSchema).toEqual(OUTPUT_SCHEMA)
  })

  it('passes structuredContent that matches', async () => {
    const r = await agent.call('call_tool_read', { name: 'pt:structured', args: { mode: 'good' } })
    expect(r.isError).toBeFalsy()
    expect(r.structuredContent).toEqual({ count: 3 })
  })

  it('turns a result that does not match into an error naming the mismatch, with nothing of it', async () => {
    const r = await agent.call('call_tool_read', { name: 'pt:structured', args: { mode: 'bad' } })
    expect(r.isError).toBe(true)
    expect(r.structuredContent).toBeUndefined()
    expect(textOf(r)).toMatch(
      /^STRUCTURED_OUTPUT_MISMATCH: pt:structured answered structuredContent that does not match its approved outputSchema \(.*count must be integer/,
    )
    expect(JSON.stringify(r)).not.toContain('UNCHECKED PAYLOAD')
    const none = await agent.call('call_tool_read', { name: 'pt:structured', args: { mode: 'none' } })
    expect(none.isError).toBe(true)
    expect(textOf(none)).toMatch(/answered without structuredContent/)
    expect(JSON.stringify(none)).not.toContain('as text only')
  })
})
