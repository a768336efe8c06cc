// Round three attack, from outside: a resource subscription must not outlive
// the agent's right to read it. A scoped agent subscribes to a resource of a server in its scope
// (resources/subscribe in 2025, subscriptions/listen in 2026-07-28); the operator then narrows
// the agent's servers to leave that server out. Updates of that resource must no longer reach
// the agent, while an unscoped agent subscribed to the same resource keeps hearing them (the
// positive control that the update was sent at all).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectHttpV2, connectStdioV2, type Era } from '../helpers/mcp-v2-client'

const SERVER = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')
const NOTE = { uri: 'file:///notes/a.txt', name: 'note-a', mimeType: 'text/plain', text: 'alpha' }
const URI = 'file://pt.toolgate.invalid/~/notes/a.txt'

useCleanup()

describe.each<Era>(['legacy', 'modern'])('attack: a subscription outliving the agent’s scope (%s era)', (era) => {
  it('an agent whose scope no longer holds the server hears none of its updates', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-attack-r3-sub-')
    const ptState = path.join(tmp, 'pt.json')
    fs.writeFileSync(ptState, JSON.stringify({ resources: [NOTE] }))
    const entry = (state: string) => ({
      command: process.execPath,
      args: [SERVER],
      env: { PASSTHROUGH_STATE: state },
      quarantined: false,
      sandbox: { fs_read: [tmp] },
    })
    const otherState = path.join(tmp, 'other.json')
    fs.writeFileSync(otherState, JSON.stringify({ resources: [] }))
    const config = (servers: string[]) => ({
      mcpServers: { pt: entry(ptState), other: entry(otherState) },
      agents: [{ name: 'reader', servers, permissions: ['read'] }],
    })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), config(['pt']))
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    const closers: Array<() => Promise<void>> = []
    try {
      await waitForServerState(serve, 'pt', 'connected')
      const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
      const reader = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, era)
      const admin = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, era)
      closers.push(
        () => reader.close(),
        () => admin.close(),
      )
      const heard = { reader: [] as string[], admin: [] as string[] }
      reader.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.reader.push(n.params.uri))
      admin.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.admin.push(n.params.uri))
      for (const a of [reader, admin]) {
        if (era === 'modern') {
          const sub = await a.client.listen({ resourceSubscriptions: [URI] })
          closers.unshift(() => sub.close())
        } else {
          await a.client.subscribeResource({ uri: URI })
        }
      }
      // both hear a first change (the subscription works for the reader while pt is in its scope)
      await new Promise((r) => setTimeout(r, 300))
      fs.writeFileSync(ptState, JSON.stringify({ resources: [{ ...NOTE, text: 'one' }] }))
      await waitFor(() => heard.reader.length > 0 && heard.admin.length > 0, 10_000, 'the first update to reach both')

      // the operator takes pt out of the reader's scope
      writeJson(configPath, config(['other']))
      await waitFor(async () => !(await reader.client.listResources()).resources.some((r) => r.uri === URI), 10_000, 'pt to leave the reader’s list')
      const before = { reader: heard.reader.length, admin: heard.admin.length }
      fs.writeFileSync(ptState, JSON.stringify({ resources: [{ ...NOTE, text: 'two' }] }))
      await waitFor(() => heard.admin.length > before.admin, 10_000, 'the second update to reach the unscoped agent')
      // give the reader's copy (if any) the same time to arrive as a further update round
      fs.writeFileSync(ptState, JSON.stringify({ resources: [{ ...NOTE, text: 'three' }] }))
      await waitFor(() => heard.admin.length > before.admin + 1, 10_000, 'the third update to reach the unscoped agent')
      expect(heard.reader.length).toBe(before.reader)
    } finally {
      for (const c of closers) await c().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 90_000)
})

describe.each<Era>(['legacy', 'modern'])('attack: a subscription outliving the agent’s scope over `toolgate stdio --agent` (%s era)', (era) => {
  it('while the server is out of the agent’s scope, none of its updates arrive; back in scope, they do', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-attack-r3-sub-stdio-')
    const ptState = path.join(tmp, 'pt.json')
    fs.writeFileSync(ptState, JSON.stringify({ resources: [NOTE] }))
    const otherState = path.join(tmp, 'other.json')
    fs.writeFileSync(otherState, JSON.stringify({ resources: [] }))
    const entry = (state: string) => ({
      command: process.execPath,
      args: [SERVER],
      env: { PASSTHROUGH_STATE: state },
      quarantined: false,
      sandbox: { fs_read: [tmp] },
    })
    const config = (servers: string[]) => ({
      mcpServers: { pt: entry(ptState), other: entry(otherState) },
      agents: [{ name: 'reader', servers, permissions: ['read'] }],
    })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), config(['pt']))
    const reader = await connectStdioV2(['--config', configPath, '--data-dir', path.join(tmp, 'data'), '--agent', 'reader'], era)
    try {
      await waitFor(async () => (await reader.client.listResources()).resources.some((r) => r.uri === URI), 20_000, 'pt to list its resource')
      const heard: string[] = []
      reader.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri))
      if (era === 'modern') await reader.client.listen({ resourceSubscriptions: [URI] })
      else await reader.client.subscribeResource({ uri: URI })
      await new Promise((r) => setTimeout(r, 300))
      fs.writeFileSync(ptState, JSON.stringify({ resources: [{ ...NOTE, text: 'one' }] }))
      await waitFor(() => heard.length > 0, 10_000, 'the first update')
      writeJson(configPath, config(['other']))
      await waitFor(async () => !(await reader.client.listResources()).resources.some((r) => r.uri === URI), 10_000, 'pt to leave the list')
      const before = heard.length
      fs.writeFileSync(ptState, JSON.stringify({ resources: [{ ...NOTE, text: 'two' }] }))
      await new Promise((r) => setTimeout(r, 300))
      // back in scope: the next update arrives, after the one that must not have
      writeJson(configPath, config(['pt']))
      await waitFor(async () => (await reader.client.listResources()).resources.some((r) => r.uri === URI), 10_000, 'pt back in the list')
      fs.writeFileSync(ptState, JSON.stringify({ resources: [{ ...NOTE, text: 'three' }] }))
      await waitFor(() => heard.length > before, 10_000, 'the update once back in scope')
      expect(heard.length).toBe(before + 1)
    } finally {
      await reader.close()
    }
  }, 90_000)
})
