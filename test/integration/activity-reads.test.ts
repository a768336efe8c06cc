// Reads on the record, end to end (a real `toolgate serve`, a real upstream with a prompt and a
// resource, both protocol eras): each prompts/get and resources/read of an agent is an activity
// record of kind `read` with the agent, the server, the name or URI it sent (masked) and the
// outcome (ok, refused by the gate with its code, error), found by GET /api/v1/activity's filters
// and by `toolgate activity`. Before, an agent could read every resource without a trace.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActivityPage, ReadEvent } from '../../src/shared/activity'
import { assertBuilt, ROOT, runCli, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, type Era, type V2Handle } from '../helpers/mcp-v2-client'

const SERVER = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')
const GREET = { name: 'greet', description: 'Say hello to the user', text: 'Hello there' }
const NOTE = { uri: 'file:///notes/a.txt', name: 'note-a', mimeType: 'text/plain', text: 'alpha' }
const TOKEN = 'sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0'

useCleanup()

describe.each<Era>(['legacy', 'modern'])('prompts/get and resources/read on the activity record (%s era)', (era) => {
  let serve: Serve
  let reader: V2Handle
  const get = async (q: string) => (await serve.api<ActivityPage>('GET', `/api/v1/activity${q}`)).json
  const fails = async (p: Promise<unknown>): Promise<string> =>
    p.then(
      (r) => `answered ${JSON.stringify(r)}`,
      (e: Error) => e.message,
    )

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-activity-reads-')
    const state = path.join(tmp, 'pt.json')
    fs.writeFileSync(state, JSON.stringify({ prompts: [GREET], resources: [NOTE], templates: [] }))
    const entry = {
      command: process.execPath,
      args: [SERVER],
      env: { PASSTHROUGH_STATE: state },
      quarantined: false,
      sandbox: { fs_read: [tmp] },
      lifecycle: 'always',
    }
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { pt: entry, other: entry, held: { ...entry, quarantined: true } },
      agents: [{ name: 'reader', servers: ['pt', 'held'], permissions: ['read'] }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'pt', 'connected')
    await waitFor(
      async () =>
        (await serve.api<{ prompts: Array<{ prompt: string; status: string }> }>('GET', '/api/v1/servers/pt/prompts')).json.prompts.some(
          (p) => p.prompt === 'greet' && p.status === 'callable',
        ),
      20_000,
      'pt:greet to be callable',
    )
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    reader = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, era)
  }, 60_000)

  afterAll(async () => {
    await reader?.close().catch(() => {})
    await stopServe(serve)
  })

  it('records each read an agent makes, allowed or refused, before the answer reaches it', async () => {
    expect(JSON.stringify(await reader.client.getPrompt({ name: 'pt__greet', arguments: {} }))).toContain('Hello there')
    // the record is written before the answer: no wait needed
    const first = (await get('?kind=read&agent=reader')).events
    expect(first).toHaveLength(1)
    expect(first[0]).toMatchObject({ kind: 'read', what: 'prompt', agent: 'reader', server: 'pt', name: 'pt__greet', outcome: 'ok' })

    const read = await reader.client.readResource({ uri: 'file://pt.toolgate.invalid/~/notes/a.txt' })
    expect(JSON.stringify(read)).toContain('alpha')
    expect(await fails(reader.client.readResource({ uri: 'file://held.toolgate.invalid/~/notes/a.txt' }))).toMatch(/RESOURCE_BLOCKED \(server_quarantined\)/)
    // out of its scope: refused, and the record names no server the agent cannot see
    expect(await fails(reader.client.getPrompt({ name: 'other__greet', arguments: {} }))).toMatch(/unknown prompt/)
    expect(await fails(reader.client.readResource({ uri: 'file://other.toolgate.invalid/~/notes/a.txt' }))).toMatch(/unknown resource/)
    // a URI carrying a secret: on the record masked
    await fails(reader.client.readResource({ uri: `file://pt.toolgate.invalid/~/notes/a.txt?api_key=${TOKEN}` }))

    const events = (await get('?kind=read&agent=reader')).events as ReadEvent[]
    const brief = events.reverse().map((e) => [e.what, e.server, e.name.replace(/\?.*/, '?…'), e.outcome, e.code ?? null])
    expect(brief).toEqual([
      ['prompt', 'pt', 'pt__greet', 'ok', null],
      ['resource', 'pt', 'file://pt.toolgate.invalid/~/notes/a.txt', 'ok', null],
      ['resource', 'held', 'file://held.toolgate.invalid/~/notes/a.txt', 'refused', -32602],
      ['prompt', null, 'other__greet', 'refused', -32602],
      ['resource', null, 'file://other.toolgate.invalid/~/notes/a.txt', 'refused', -32602],
      ['resource', 'pt', 'file://pt.toolgate.invalid/~/notes/a.txt?…', expect.stringMatching(/^(ok|error)$/), expect.anything()],
    ])
    expect(events.every((e) => e.agent === 'reader' && e.duration_ms >= 0)).toBe(true)
    expect(events[2].error).toMatch(/RESOURCE_BLOCKED \(server_quarantined\)/)
    expect(JSON.stringify(events)).not.toContain(TOKEN)

    // the filters: server= finds the refused read of the quarantined server, kind= keeps reads apart from calls
    expect((await get('?server=held')).events.filter((e) => e.kind === 'read')).toHaveLength(1)
    expect((await get('?kind=call')).events).toHaveLength(0)
    // outcome= is a call's: it does not match reads
    expect((await get('?outcome=ok&agent=reader')).events).toHaveLength(0)

    const json = await runCli(['activity', '--kind', 'read', '--agent', 'reader', '--json', ...serve.flags])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual(await get('?kind=read&agent=reader'))
    const human = await runCli(['activity', '--kind', 'read', '--server', 'held', ...serve.flags])
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(
      /read\s+reader \(toolgate-it-http-v2-[a-z]+\)\s+resource "file:\/\/held\.toolgate\.invalid\/~\/notes\/a\.txt" on held\s+refused \(-32602\)/,
    )
  })
})
