// The direct view takes a prompt's and a resource's own name on its server (a client that
// knows its server, as the conformance suite does, or an App), and only where that is safe: three
// real upstreams behind a real `toolgate serve`, two offering the same prompt name and resource
// URI, the third a template that matches every note:// URI. Attacks: a name two servers have reads
// neither (ambiguous, naming both); a catch-all template never takes a URI another server lists;
// an agent scoped to one server never reaches another's prompt or resource by its own name; the
// meta view (/mcp) keeps to Toolgate's names.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, type V2Handle } from '../helpers/mcp-v2-client'

const PT = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')

useCleanup()

const text = (r: { contents: Array<Record<string, unknown>> }): string => r.contents.map((c) => String(c.text ?? '')).join('|')
const promptText = (r: { messages: Array<{ content: unknown }> }): string => JSON.stringify(r.messages)
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    return `answered ${JSON.stringify(await p)}`
  } catch (e) {
    return (e as Error).message
  }
}

describe('the direct view, by a server’s own names', () => {
  let serve: Serve
  let direct: V2Handle
  let meta: V2Handle
  let scoped: V2Handle

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-direct-names-')
    const state = (name: string, s: unknown): string => {
      const f = path.join(tmp, `${name}.json`)
      fs.writeFileSync(f, JSON.stringify(s))
      return f
    }
    const a = state('a', {
      prompts: [{ name: 'hello', description: 'Hello from a', text: 'A-PROMPT' }],
      resources: [{ uri: 'note://shared', name: 'shared', text: 'A-SECRET' }],
    })
    const b = state('b', {
      prompts: [{ name: 'hello', description: 'Hello from b', text: 'B-PROMPT' }],
      resources: [
        { uri: 'note://shared', name: 'shared', text: 'B-SECRET' },
        { uri: 'note://only-b', name: 'only-b', text: 'B-ONLY' },
      ],
    })
    const c = state('c', {
      prompts: [{ name: 'solo', description: 'Only c has it', text: 'C-SOLO' }],
      templates: [{ uriTemplate: 'note://{x}', name: 'catch-all' }],
    })
    const entry = (f: string) => ({ command: process.execPath, args: [PT], env: { PASSTHROUGH_STATE: f }, quarantined: false, sandbox: { fs_read: [tmp] } })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { a: entry(a), b: entry(b), c: entry(c) },
      agents: [{ name: 'only-c', servers: ['c'], permissions: ['read'] }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const s of ['a', 'b', 'c']) await waitForServerState(serve, s, 'connected')
    const auth = { authorization: `Bearer ${serve.key}` }
    direct = await connectHttpV2(`${serve.url}/mcp/direct`, auth, 'legacy')
    meta = await connectHttpV2(`${serve.url}/mcp`, auth, 'legacy')
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/only-c/token')).json.token
    scoped = await connectHttpV2(`${serve.url}/mcp/direct`, { authorization: `Bearer ${token}` }, 'legacy')
    await waitFor(async () => (await direct.client.listPrompts()).prompts.length === 3, 20_000, 'the three prompts to be listed')
  }, 60_000)

  afterAll(async () => {
    for (const h of [direct, meta, scoped]) await h?.close().catch(() => {})
    await stopServe(serve)
  })

  it('a prompt by its own name where one server has it; a name two servers have gets neither', async () => {
    expect(promptText(await direct.client.getPrompt({ name: 'solo' }))).toContain('C-SOLO')
    const e = await failure(direct.client.getPrompt({ name: 'hello' }))
    expect(e).toMatch(/ambiguous: a__hello, b__hello/)
    expect(e).not.toMatch(/A-PROMPT|B-PROMPT/)
    // Toolgate's names still work
    expect(promptText(await direct.client.getPrompt({ name: 'b__hello' }))).toContain('B-PROMPT')
  })

  it('a resource by its own URI where one server lists it; a catch-all template never takes a listed URI', async () => {
    // b lists it; c's template matches it too, but a listed URI is the server's own
    expect(text(await direct.client.readResource({ uri: 'note://only-b' }))).toBe('B-ONLY')
    // listed by a and b: ambiguous, nothing of either
    const e = await failure(direct.client.readResource({ uri: 'note://shared' }))
    expect(e).toMatch(/ambiguous: note:\/\/a\.toolgate\.invalid\/~shared and note:\/\/b\.toolgate\.invalid\/~shared/)
    expect(e).not.toMatch(/A-SECRET|B-SECRET/)
    // listed by none: the one template that matches
    expect(text(await direct.client.readResource({ uri: 'note://elsewhere' }))).toBe('catch-all: note://elsewhere')
    // subscribing by the server's own URI goes to the same server
    await direct.client.subscribeResource({ uri: 'note://only-b' })
    await direct.client.unsubscribeResource({ uri: 'note://only-b' })
  })

  it('an agent scoped to one server never reaches another’s prompt or resource by its own name', async () => {
    expect(await failure(scoped.client.getPrompt({ name: 'hello' }))).toMatch(/unknown prompt "hello"/)
    expect(await failure(scoped.client.getPrompt({ name: 'a__hello' }))).toMatch(/unknown prompt "a__hello"/)
    // b is out of its reach: the URI b lists is c's template's to answer, never b's
    const r = text(await scoped.client.readResource({ uri: 'note://only-b' }))
    expect(r).toBe('catch-all: note://only-b')
    expect(text(await scoped.client.readResource({ uri: 'note://shared' }))).toBe('catch-all: note://shared')
  })

  it('the meta view (/mcp) keeps to Toolgate’s names', async () => {
    expect(await failure(meta.client.getPrompt({ name: 'solo' }))).toMatch(/unknown prompt "solo"/)
    expect(await failure(meta.client.readResource({ uri: 'note://only-b' }))).toMatch(/unknown resource "note:\/\/only-b"/)
    expect(promptText(await meta.client.getPrompt({ name: 'c__solo' }))).toContain('C-SOLO')
  })
})
