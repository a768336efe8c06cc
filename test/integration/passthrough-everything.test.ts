// What passes through, with the reference `everything` server from npm (a 2025-era server on SDK 1.x) behind a
// real `toolgate serve`, read by a 2026-07-28 agent: its prompts (with arguments, completions and
// an embedded resource), its resources and templates, its resource links, and a subscription
// (Toolgate subscribes upstream with resources/subscribe; the server's updates reach the agent on
// its subscriptions/listen stream with Toolgate's URIs).
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, EVERYTHING, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, type V2Handle } from '../helpers/mcp-v2-client'

useCleanup()

describe('the everything server through Toolgate (2025 upstream, 2026-07-28 agent)', () => {
  let serve: Serve
  let agent: V2Handle

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-pt-everything-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], quarantined: false } },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'everything', 'connected')
    await waitFor(
      async () => (await serve.api<{ prompts: unknown[] }>('GET', '/api/v1/servers/everything/prompts')).json.prompts.length > 0,
      20_000,
      'everything to list its prompts',
    )
    agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, 'modern')
  }, 60_000)

  afterAll(async () => {
    await agent?.close().catch(() => {})
    await stopServe(serve)
  })

  it('lists its prompts, reads one with arguments, completes an argument, and rewrites an embedded resource', async () => {
    const names = (await agent.client.listPrompts()).prompts.map((p) => p.name).sort()
    expect(names).toEqual(['everything__args-prompt', 'everything__completable-prompt', 'everything__resource-prompt', 'everything__simple-prompt'])
    const args = await agent.client.getPrompt({ name: 'everything__args-prompt', arguments: { city: 'Lyon' } })
    expect(JSON.stringify(args.messages)).toContain('Lyon')
    const done = await agent.client.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'department', value: 'S' },
    })
    expect(done.completion.values).toEqual(['Sales', 'Support'])
    const res = await agent.client.getPrompt({ name: 'everything__resource-prompt', arguments: { resourceType: 'Text', resourceId: '2' } })
    const embedded = res.messages.map((m) => m.content).find((c) => c.type === 'resource') as { resource: { uri: string } } | undefined
    expect(embedded?.resource.uri).toMatch(/^demo:\/\/everything\.toolgate\.invalid\/~resource\//)
    // and it reads back through Toolgate
    expect((await agent.client.readResource({ uri: embedded?.resource.uri as string })).contents[0].uri).toBe(embedded?.resource.uri)
  })

  it('lists its resources and templates, and resolves the links its tools return', async () => {
    const { resources } = await agent.client.listResources()
    expect(resources.length).toBeGreaterThan(0)
    for (const r of resources) expect(r.uri).toMatch(/^[a-z]+:\/\/everything\.toolgate\.invalid\/[~!]/)
    const { resourceTemplates } = await agent.client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('demo://everything.toolgate.invalid/~resource/dynamic/text/{resourceId}')
    const links = await agent.call('call_tool_read', { name: 'everything:get-resource-links', args: { count: 2 } })
    const uris = links.content.filter((b) => b.type === 'resource_link').map((b) => (b as unknown as { uri: string }).uri)
    expect(uris).toHaveLength(2)
    for (const uri of uris) {
      expect(uri).toMatch(/^demo:\/\/everything\.toolgate\.invalid\/~/)
      expect((await agent.client.readResource({ uri })).contents.length).toBeGreaterThan(0)
    }
  })

  it('subscribes upstream (resources/subscribe) while the agent listens, and relays the updates', async () => {
    const uri = 'demo://everything.toolgate.invalid/~resource/dynamic/text/1'
    const heard: string[] = []
    agent.client.setNotificationHandler('notifications/resources/updated', (n) => {
      heard.push(n.params.uri)
    })
    const sub = await agent.client.listen({ resourceSubscriptions: [uri] })
    const on = await agent.call('call_tool_write', { name: 'everything:toggle-subscriber-updates', args: {} })
    expect(on.isError).toBeFalsy()
    await waitFor(() => heard.includes(uri), 15_000, 'an update of the subscribed resource')
    await agent.call('call_tool_write', { name: 'everything:toggle-subscriber-updates', args: {} })
    await sub.close()
  })
})
