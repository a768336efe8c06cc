// Round three attack on names, from outside: an agent scoped to some servers must not learn from
// the names it is given or may use that another server exists.
// - Prompts: server "mine" has the prompt "a__b", server "mine__a" (out of the agent's scope) has
//   "b": both would be "mine__a__b". Named across all servers, the scoped agent's prompt came out
//   hashed, which told it that something out of its scope has that name.
// - Resources: a URI's host names its server, matched ignoring case when one server has the name
//   (clients lowercase hosts). Server "Notes" is in scope, "notes" is not: whether the lowercased
//   host of Notes's URI reads Notes must not depend on "notes" existing.
// A real `toolgate serve`, agents of both eras on /mcp and /mcp/direct, passthrough fixture upstreams.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectHttpV2, type Era, type V2Handle } from '../helpers/mcp-v2-client'

const SERVER = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')

useCleanup()

interface World {
  serve: Serve
  token: string
}

async function world(): Promise<World> {
  assertBuilt()
  const tmp = tempDir('toolgate-attack-r3-prompt-names-')
  const servers: Record<string, unknown> = {}
  for (const [name, prompt, text] of [
    ['mine', 'a__b', 'the prompt of the server mine'],
    ['mine__a', 'b', 'the prompt of the server mine__a'],
    ['other', 'note', 'the prompt of the server other'],
    ['Notes', null, 'NOTE-OF-Notes'],
    ['notes', null, 'NOTE-OF-notes'],
  ] as const) {
    const state = path.join(tmp, `${name}-${Object.keys(servers).length}.json`)
    fs.writeFileSync(
      state,
      JSON.stringify(
        prompt === null
          ? { resources: [{ uri: 'file:///notes/a.txt', name: 'note-a', mimeType: 'text/plain', text }] }
          : { prompts: [{ name: prompt, description: `Prompt ${prompt} of ${name}`, text }] },
      ),
    )
    servers[name] = { command: process.execPath, args: [SERVER], env: { PASSTHROUGH_STATE: state }, quarantined: false, sandbox: { fs_read: [tmp] } }
  }
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    mcpServers: servers,
    agents: [{ name: 'reader', servers: ['mine', 'Notes'], permissions: ['read'] }],
  })
  const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  for (const s of Object.keys(servers)) await waitForServerState(serve, s, 'connected')
  const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
  return { serve, token }
}

const textOfPrompt = (r: { messages: unknown[] }): string => JSON.stringify(r.messages)

describe.each<Era>(['legacy', 'modern'])('attack: prompt names tell nothing of servers out of scope (%s era)', (era) => {
  let w: World
  const handles: V2Handle[] = []

  beforeAll(async () => {
    w = await world()
  }, 60_000)

  afterAll(async () => {
    for (const h of handles) await h.close().catch(() => {})
    if (w) await stopProcess(w.serve.child)
  })

  it('a scoped agent’s prompt keeps its plain name although an out-of-scope server has one that would meet it', async () => {
    const admin = await connectHttpV2(`${w.serve.url}/mcp`, { authorization: `Bearer ${w.serve.key}` }, era)
    handles.push(admin)
    // the control: an agent of every server sees three prompts, the two that would meet under two names
    await waitFor(async () => (await admin.client.listPrompts()).prompts.length === 3, 20_000, 'three prompts for the admin')
    const all = (await admin.client.listPrompts()).prompts
    const adminNames = ['mine:a__b', 'mine__a:b'].map((id) => all.find((p) => p._meta?.['toolgate/id'] === id)?.name)
    expect(adminNames).not.toContain(undefined)
    expect(new Set(adminNames).size).toBe(2)

    for (const endpoint of ['/mcp', '/mcp/direct']) {
      const reader = await connectHttpV2(`${w.serve.url}${endpoint}`, { authorization: `Bearer ${w.token}` }, era)
      handles.push(reader)
      const listed = (await reader.client.listPrompts()).prompts
      // exactly the name it would have if mine__a did not exist
      expect(listed.map((p) => [p.name, p._meta?.['toolgate/id']])).toEqual([['mine__a__b', 'mine:a__b']])
      expect(textOfPrompt(await reader.client.getPrompt({ name: 'mine__a__b' }))).toContain('the prompt of the server mine')
      expect(textOfPrompt(await reader.client.getPrompt({ name: 'mine__a__b' }))).not.toContain('mine__a"')
      // the admin's name for the out-of-scope prompt reads nothing, and says the same as a made-up name
      const refusal = async (name: string): Promise<string> =>
        reader.client.getPrompt({ name }).then(
          (r) => `answered ${textOfPrompt(r)}`,
          (e: Error) => e.message.replaceAll(name, 'X'),
        )
      for (const name of adminNames) if (name !== 'mine__a__b') expect(await refusal(name ?? 'missing')).toBe(await refusal('mine__zz_000000'))
      expect(await refusal('other__note')).toBe(await refusal('other__nosuch'))
    }
  })

  it('a resource URI whose host is its server’s name in lower case reads that server, whether or not an out-of-scope server has that name', async () => {
    const read = async (h: V2Handle, uri: string): Promise<string> =>
      h.client.readResource({ uri }).then(
        (r) => JSON.stringify(r.contents),
        (e: Error) => `refused: ${e.message}`,
      )
    const admin = await connectHttpV2(`${w.serve.url}/mcp`, { authorization: `Bearer ${w.serve.key}` }, era)
    const reader = await connectHttpV2(`${w.serve.url}/mcp`, { authorization: `Bearer ${w.token}` }, era)
    handles.push(admin, reader)
    const listed = (await reader.client.listResources()).resources.map((r) => r.uri)
    expect(listed).toHaveLength(1)
    const given = listed[0]
    expect(await read(reader, given)).toContain('NOTE-OF-Notes')
    // the control: "notes" is a server of its own, read by an agent of every server
    const lower = given.replace('Notes.toolgate.invalid', 'notes.toolgate.invalid')
    expect(lower).not.toBe(given)
    expect(await read(admin, lower)).toContain('NOTE-OF-notes')
    // the reader: the lowercased host is its own server's, as it would be if "notes" did not exist
    const got = await read(reader, lower)
    expect(got).not.toContain('NOTE-OF-notes')
    expect(got).toContain('NOTE-OF-Notes')
  })
})
