// Resources for agents, from outside (a real `toolgate serve`, agents of both eras over HTTP /mcp,
// real upstreams whose resources the test rewrites): resources/list and templates/list give URIs
// that name their server and keep their scheme; resources/read reads them back; a tool result's
// resource links and embedded resources name the same URIs and resolve through Toolgate;
// completion/complete works for template arguments; subscriptions deliver
// notifications/resources/updated (resources/subscribe in 2025, subscriptions/listen in
// 2026-07-28); results over limits.max_result_bytes are refused. Attacks: URIs crafted to reach
// another server (encodings, "..", another server's name, user info, scheme confusion) read
// nothing of it; a locked server's resources are neither listed nor read (RESOURCE_BLOCKED with
// the status); a scoped agent never reads another server's resources.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, connectStdioV2, type Era, type V2Handle } from '../helpers/mcp-v2-client'

const SERVER = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')

useCleanup()

const NOTE = { uri: 'file:///notes/a.txt', name: 'note-a', mimeType: 'text/plain', text: 'alpha' }
const BIG = { uri: 'file:///notes/big.txt', name: 'big', text: 'x'.repeat(20_000) }
const TEMPLATE = { uriTemplate: 'file:///notes/{id}.md', name: 'note' }
const SECRET = { uri: 'file:///notes/a.txt', name: 'other-secret', text: 'THE OTHER SERVER SECRET' }

describe.each<Era>(['legacy', 'modern'])('resources for agents (%s era)', (era) => {
  let serve: Serve
  let tmp: string
  let ptState: string
  let agent: V2Handle
  let reader: V2Handle
  const writePt = (resources: unknown[]) => fs.writeFileSync(ptState, JSON.stringify({ prompts: [], resources, templates: [TEMPLATE] }))
  const readError = async (a: V2Handle, uri: string): Promise<string> => {
    try {
      const r = await a.client.readResource({ uri })
      return `answered ${JSON.stringify(r)}`
    } catch (e) {
      return (e as Error).message
    }
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-resources-')
    ptState = path.join(tmp, 'pt.json')
    writePt([NOTE, BIG])
    const otherState = path.join(tmp, 'other.json')
    fs.writeFileSync(otherState, JSON.stringify({ resources: [SECRET] }))
    const entry = (state: string) => ({
      command: process.execPath,
      args: [SERVER],
      env: { PASSTHROUGH_STATE: state },
      quarantined: false,
      sandbox: { fs_read: [tmp] },
      // resources/list lists running servers only, and a 2026-07-28 subscription needs the server up (docs/lifecycle.md)
      lifecycle: 'always',
    })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { pt: entry(ptState), other: entry(otherState), held: { ...entry(otherState), quarantined: true } },
      agents: [{ name: 'reader', servers: ['pt', 'held'], permissions: ['read'] }],
      limits: { max_result_bytes: 8000 },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'pt', 'connected')
    await waitForServerState(serve, 'other', 'connected')
    agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, era)
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    reader = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, era)
  }, 60_000)

  afterAll(async () => {
    await agent?.close().catch(() => {})
    await reader?.close().catch(() => {})
    await stopServe(serve)
  })

  it('lists resources and templates with URIs that name their server and keep their scheme, and reads them back', async () => {
    expect(agent.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true })
    const { resources } = await agent.client.listResources()
    const uris = resources.map((r) => r.uri).sort()
    expect(uris).toEqual([
      'file://other.toolgate.invalid/~/notes/a.txt',
      'file://pt.toolgate.invalid/~/notes/a.txt',
      'file://pt.toolgate.invalid/~/notes/big.txt',
    ])
    const read = await agent.client.readResource({ uri: 'file://pt.toolgate.invalid/~/notes/a.txt' })
    expect(read.contents).toEqual([{ uri: 'file://pt.toolgate.invalid/~/notes/a.txt', mimeType: 'text/plain', text: 'alpha' }])
    const { resourceTemplates } = await agent.client.listResourceTemplates()
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['file://pt.toolgate.invalid/~/notes/{id}.md'])
    // a template expanded by the agent reads back to the server's expansion
    const t = await agent.client.readResource({ uri: 'file://pt.toolgate.invalid/~/notes/42.md' })
    expect(t.contents[0]).toMatchObject({ uri: 'file://pt.toolgate.invalid/~/notes/42.md', text: 'note: file:///notes/42.md' })
  })

  it('completes a template argument', async () => {
    const r = await agent.client.complete({
      ref: { type: 'ref/resource', uri: 'file://pt.toolgate.invalid/~/notes/{id}.md' },
      argument: { name: 'id', value: '1' },
    })
    expect(r.completion.values).toEqual(['1', '10'])
  })

  it('rewrites resource links and embedded resources in tool results, and the links resolve through Toolgate', async () => {
    const r = await agent.call('call_tool_read', { name: 'pt:links', args: {} })
    expect(r.isError).toBeFalsy()
    const link = r.content.find((b) => b.type === 'resource_link') as unknown as { uri: string }
    const embedded = r.content.find((b) => b.type === 'resource') as unknown as { resource: { uri: string; text: string } }
    expect(link.uri).toBe('file://pt.toolgate.invalid/~/notes/a.txt')
    expect(embedded.resource.uri).toBe('file://pt.toolgate.invalid/~/notes/a.txt')
    expect((await agent.client.readResource({ uri: link.uri })).contents[0]).toMatchObject({ text: 'alpha' })
  })

  it('refuses a result over limits.max_result_bytes, as for a tool result', async () => {
    expect(await readError(agent, 'file://pt.toolgate.invalid/~/notes/big.txt')).toMatch(/over the limit of 8000 bytes/)
  })

  it('attack: URIs crafted to escape pt’s namespace read nothing of another server', async () => {
    const crafted = [
      'file://pt.toolgate.invalid/~/../../other.toolgate.invalid/~/notes/a.txt',
      'file://pt.toolgate.invalid/~/notes/%2e%2e/%2e%2e/other/notes/a.txt',
      'file://other.toolgate.invalid@pt.toolgate.invalid/~/notes/a.txt',
      'file://pt.toolgate.invalid@other.toolgate.invalid/~/notes/a.txt',
      'file://%6Fther.toolgate.invalid/~/notes/a.txt',
      'file://other.toolgate.invalid:443/~/notes/a.txt',
      'file:///notes/a.txt',
      'other://pt.toolgate.invalid/~/notes/a.txt',
      'file://pt.toolgate.invalid/!file://other.toolgate.invalid/~/notes/a.txt',
    ]
    for (const uri of crafted) {
      // the reader's scope is pt (and held): never other
      expect(await readError(reader, uri)).not.toContain('THE OTHER SERVER SECRET')
      expect(await readError(agent, uri)).not.toContain('THE OTHER SERVER SECRET')
    }
    // and the reader cannot name other directly either
    const direct = await readError(reader, 'file://other.toolgate.invalid/~/notes/a.txt')
    expect(direct).toMatch(/unknown resource/)
    expect((await reader.client.listResources()).resources.map((r) => r.uri).every((u) => u.startsWith('file://pt.'))).toBe(true)
  })

  it('a locked server’s resources are neither listed nor read: RESOURCE_BLOCKED with the status and its remediation', async () => {
    const held = await readError(reader, 'file://held.toolgate.invalid/~/notes/a.txt')
    expect(held).toMatch(/RESOURCE_BLOCKED \(server_quarantined\): The operator holds this server in quarantine/)
    expect(held).not.toContain('THE OTHER SERVER SECRET')
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/pt/disable', {})).status).toBe(200)
    await waitFor(async () => !(await agent.client.listResources()).resources.some((r) => r.uri.includes('pt.toolgate')), 10_000, 'pt to leave the list')
    expect(await readError(agent, 'file://pt.toolgate.invalid/~/notes/a.txt')).toMatch(/RESOURCE_BLOCKED \(server_disabled\)/)
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/pt/enable', {})).status).toBe(200)
    await waitForServerState(serve, 'pt', 'connected')
  })

  it('delivers notifications/resources/updated for a subscribed resource, with Toolgate’s URI', async () => {
    const heard: string[] = []
    agent.client.setNotificationHandler('notifications/resources/updated', (n) => {
      heard.push(n.params.uri)
    })
    const uri = 'file://pt.toolgate.invalid/~/notes/a.txt'
    let close: (() => Promise<void>) | null = null
    if (era === 'modern') {
      const sub = await agent.client.listen({ resourceSubscriptions: [uri] })
      close = () => sub.close()
    } else {
      await agent.client.subscribeResource({ uri })
      close = () => agent.client.unsubscribeResource({ uri }).then(() => undefined)
    }
    // the server may take a moment to be subscribed upstream
    await new Promise((r) => setTimeout(r, 300))
    writePt([{ ...NOTE, text: 'alpha, changed' }, BIG])
    await waitFor(() => heard.includes(uri), 10_000, 'the update to arrive')
    await close()
  })

  it('the control API lists a server’s resources with both URIs', async () => {
    const r = await apiRequest(serve, 'GET', '/api/v1/servers/pt/resources')
    expect(r.status).toBe(200)
    expect(r.json.resources).toContainEqual(
      expect.objectContaining({ uri: 'file:///notes/a.txt', agent_uri: 'file://pt.toolgate.invalid/~/notes/a.txt', name: 'note-a' }),
    )
    expect(r.json.templates).toEqual([
      expect.objectContaining({ uriTemplate: 'file:///notes/{id}.md', agent_uri_template: 'file://pt.toolgate.invalid/~/notes/{id}.md' }),
    ])
    const held = await apiRequest(serve, 'GET', '/api/v1/servers/held/resources')
    expect(held.json).toMatchObject({ resources: [], note: expect.stringMatching(/quarantine/) })
  })
})

describe.each<Era>(['legacy', 'modern'])('resources over the embedded `toolgate stdio` (%s era)', (era) => {
  it('reads, and relays updates of a subscribed resource', async () => {
    const tmp = tempDir('toolgate-resources-stdio-')
    const state = path.join(tmp, 'pt.json')
    fs.writeFileSync(state, JSON.stringify({ resources: [NOTE] }))
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { pt: { command: process.execPath, args: [SERVER], env: { PASSTHROUGH_STATE: state }, quarantined: false, sandbox: { fs_read: [tmp] } } },
    })
    const agent = await connectStdioV2(['--config', configPath, '--data-dir', path.join(tmp, 'data')], era)
    try {
      const uri = 'file://pt.toolgate.invalid/~/notes/a.txt'
      await waitFor(async () => (await agent.client.listResources()).resources.some((r) => r.uri === uri), 20_000, 'pt to list its resource')
      expect((await agent.client.readResource({ uri })).contents[0]).toMatchObject({ text: 'alpha' })
      const heard: string[] = []
      agent.client.setNotificationHandler('notifications/resources/updated', (n) => {
        heard.push(n.params.uri)
      })
      if (era === 'modern') await agent.client.listen({ resourceSubscriptions: [uri, 'file://nobody.toolgate.invalid/~/x'] })
      else await agent.client.subscribeResource({ uri })
      await new Promise((r) => setTimeout(r, 300))
      fs.writeFileSync(state, JSON.stringify({ resources: [{ ...NOTE, text: 'changed' }] }))
      await waitFor(() => heard.includes(uri), 10_000, 'the update to arrive')
    } finally {
      await agent.close()
    }
  })
})
