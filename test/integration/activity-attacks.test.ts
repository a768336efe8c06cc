// The activity record under attack, against a real `toolgate serve`: an agent picks its client
// name, its queries, tool ids and arguments, so it tries to drive the terminal (ESC/OSC, C1,
// bidi), to get secrets written to disk, and to blow up the record. What reaches the files, the
// API, `toolgate activity` and `toolgate agents list` must be masked, escaped and bounded.
import { createHash, createHmac, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActivityPage, CallEvent, SearchEvent } from '../../src/shared/activity'
import type { AgentView } from '../../src/shared/agents'
import { runCli, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { activityFiles, notesServer } from '../helpers/notes-world'
import { MAX_QUERY_CHARS } from '../../src/shared/retrieve'

const SECRET_ENV = 'env-secret-q7w8e9r0t1y2'
/** What a terminal must never receive raw: C0 but newline, DEL, C1, bidi controls, zero-width. */
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/

useCleanup()

function config(tmp: string, extra: Record<string, unknown> = {}): string {
  return writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: { notes: notesServer(tmp, SECRET_ENV) }, ...extra })
}

function activityDir(serve: Serve): string {
  return path.join(serve.dataDir, 'activity')
}

const files = (serve: Serve): string => activityFiles(serve.dataDir)

async function connectAs(serve: Serve, clientName: string): Promise<Client> {
  const client = new Client({ name: clientName, version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }))
  return client
}

const call = (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })

describe('activity under attack (a live `toolgate serve`)', () => {
  let tmp: string
  let serve: Serve
  let agent: Client
  const EVIL_CLIENT = 'evil\u001b]52;c;cHduZWQ=\u0007\u009b31m\u202egnp.exe\u200b<img src=x onerror=alert(1)>'

  beforeAll(async () => {
    tmp = tempDir()
    serve = await startServe({ configPath: config(tmp), dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    agent = await connectAs(serve, EVIL_CLIENT)
  }, 60_000)

  afterAll(async () => {
    await agent?.close()
    await stopServe(serve)
  })

  it('masks secrets an agent puts in its arguments, in the files and the API; the digest is of the real arguments', async () => {
    const secrets = {
      apiKey: 'k1-short',
      password: 'hunter2',
      dsn: 'Pg-s3cret-pw',
      bearer: 'abc.def.ghi',
      envLine: 'shh-value-9',
      flag: 'hunter3',
      sk: 'sk-proj-a1b2',
      ghp: 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
      query: 'qk-55555',
      inJson: 'cs-777',
      listed: 't-one-1',
    }
    const args = {
      api_key: secrets.apiKey,
      profile: { name: 'bob', password: secrets.password },
      dsn: `postgres://admin:${secrets.dsn}@db.example/app`,
      command: `curl -H "Authorization: Bearer ${secrets.bearer}" https://api.example/v1?api_key=${secrets.query}&page=2`,
      shell: `OPENAI_API_KEY=${secrets.envLine} node run.js --password ${secrets.flag} --user bob`,
      note: `use ${secrets.sk} or ${secrets.ghp}; the notebook token is ${SECRET_ENV}`,
      body: `{"client_secret": "${secrets.inJson}", "scope": "read"}`,
      tokens: [secrets.listed, 't-two-2'],
    }
    await call(agent, 'call_tool_read', { name: 'notes:read_notes', args })
    const rec = await waitFor(
      async () => (await serve.api<ActivityPage>('GET', '/api/v1/activity?kind=call&limit=1')).json.events[0] as CallEvent | undefined,
      10_000,
      'the call record',
    )
    const onDisk = files(serve)
    const fromApi = JSON.stringify((await serve.api<ActivityPage>('GET', '/api/v1/activity?limit=500')).json)
    for (const [what, secret] of Object.entries({ ...secrets, env: SECRET_ENV })) {
      expect(onDisk.includes(secret), `${what} on disk`).toBe(false)
      expect(fromApi.includes(secret), `${what} in the API`).toBe(false)
    }
    // what is not a secret stays readable
    const preview = JSON.parse(rec.args_preview!) as Record<string, unknown>
    expect(preview.profile).toEqual({ name: 'bob', password: '***' })
    expect(preview.dsn).toBe('postgres://***:***@db.example/app')
    expect(preview.shell).toBe('OPENAI_API_KEY=*** node run.js --password *** --user bob')
    expect(preview.body).toBe('{"client_secret": "***", "scope": "read"}')
    expect(String(preview.command)).toContain('page=2')
    // the digest is of the arguments the agent sent, not of the preview
    const small = { b: 'x', a: 1 }
    await call(agent, 'call_tool_read', { name: 'notes:read_notes', args: small })
    const second = await waitFor(
      async () => {
        const e = (await serve.api<ActivityPage>('GET', '/api/v1/activity?kind=call&limit=1')).json.events[0] as CallEvent
        return e.id !== rec.id ? e : null
      },
      10_000,
      'the second call record',
    )
    // keyed: HMAC-SHA256 with <data-dir>/args.key (0600), no plain SHA-256 on record
    const keyFile = path.join(serve.dataDir, 'args.key')
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
    const key = Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'base64')
    expect(second.args_hmac).toBe(createHmac('sha256', key).update('{"a":1,"b":"x"}').digest('hex'))
    expect(JSON.stringify(second)).not.toContain(createHash('sha256').update('{"a":1,"b":"x"}').digest('hex'))
    expect(second).not.toHaveProperty('args_sha256')
  })

  it('a 4-digit PIN argument cannot be brute-forced from its digest without the key (the digest is keyed: docs/activity.md)', async () => {
    await call(agent, 'call_tool_read', { name: 'notes:read_notes', args: { pin: '4711' } })
    const rec = await waitFor(
      async () =>
        ((await serve.api<ActivityPage>('GET', '/api/v1/activity?kind=call&limit=20')).json.events as CallEvent[]).find(
          (e) => e.args_preview === '{"pin":"***"}',
        ),
      10_000,
      'the PIN call record',
    )
    const digest = rec.args_hmac
    const pins = Array.from({ length: 10_000 }, (_, i) => JSON.stringify({ pin: String(i).padStart(4, '0') }))
    // the attack that worked before: SHA-256 of every candidate
    expect(pins.filter((p) => createHash('sha256').update(p).digest('hex') === digest)).toEqual([])
    // a guessed key finds nothing either
    const guess = randomBytes(32)
    expect(pins.filter((p) => createHmac('sha256', guess).update(p).digest('hex') === digest)).toEqual([])
    // the record still tells equal arguments apart for someone holding the key (the data dir's owner)
    const key = Buffer.from(fs.readFileSync(path.join(serve.dataDir, 'args.key'), 'utf8').trim(), 'base64')
    expect(pins.filter((p) => createHmac('sha256', key).update(p).digest('hex') === digest)).toEqual(['{"pin":"4711"}'])
    // and the files on disk hold no plain digest of it
    expect(files(serve)).not.toContain(createHash('sha256').update('{"pin":"4711"}').digest('hex'))
  })

  it('bounds every record, however big the client name, query, tool id and arguments', async () => {
    const before = fs.statSync(activityDir(serve)).isDirectory() ? files(serve).length : 0
    const big = 'A'.repeat(200_000)
    const huge = await connectAs(serve, `client-${'x'.repeat(20_000)}`)
    try {
      // (the longest query retrieve_tools takes, MAX_QUERY_CHARS: still far above what a record keeps)
      await huge.callTool({ name: 'retrieve_tools', arguments: { query: `notes ${big.slice(0, MAX_QUERY_CHARS - 6)}` } })
      await call(huge, 'call_tool_read', { name: `${'s'.repeat(100_000)}:${'t'.repeat(100_000)}`, args: {} })
      let deep: unknown = 'bottom'
      for (let i = 0; i < 200; i++) deep = { d: deep }
      const wide = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}${'k'.repeat(500)}`, big.slice(0, 1000)]))
      await call(huge, 'call_tool_read', { name: 'notes:read_notes', args: { big, deep, wide, list: Array.from({ length: 10_000 }, (_, i) => i) } })
    } finally {
      await huge.close()
    }
    const page = await waitFor(
      async () => {
        const p = (await serve.api<ActivityPage>('GET', '/api/v1/activity?limit=3')).json
        return p.events.length === 3 && p.events.every((e) => e.client?.startsWith('client-')) ? p : null
      },
      10_000,
      'three records of the big client',
    )
    const lines = files(serve).slice(before).split('\n').filter(Boolean)
    expect(lines).toHaveLength(3)
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThan(4096)
    const [args, id, search] = page.events as [CallEvent, CallEvent, SearchEvent]
    expect(args.client!.length).toBeLessThanOrEqual(100)
    expect(search.query.length).toBeLessThanOrEqual(500)
    expect(id.tool.length).toBeLessThanOrEqual(400)
    expect(id.server!.length).toBeLessThanOrEqual(200)
    expect(id.outcome).toBe('error')
    expect(args.args_preview!.length).toBeLessThanOrEqual(1024)
  }, 60_000)

  it('escapes what the agent wrote in `toolgate activity` and `toolgate agents list`, text and JSON', async () => {
    await agent.callTool({ name: 'retrieve_tools', arguments: { query: 'notes \u001b]0;owned\u0007 \u202eevil\u2066' } })
    await call(agent, 'call_tool_read', { name: 'notes:read\u001b[2J\u009b2J_notes', args: { text: 'ok\u001b]52;c;cHduZWQ=\u0007\u202e' } })
    const api = await waitFor(
      async () => {
        const p = (await serve.api<ActivityPage>('GET', `/api/v1/activity?agent=${encodeURIComponent(EVIL_CLIENT)}&limit=500`)).json
        return p.events.some((e) => e.kind === 'search' && e.query.includes('owned')) && p.events.some((e) => e.kind === 'call' && e.tool.includes('[2J'))
          ? p
          : null
      },
      10_000,
      'the evil client’s records',
    )
    // the record keeps the agent's text as it was (escaping is the job of whoever shows it)
    expect(api.events.every((e) => e.client === EVIL_CLIENT)).toBe(true)

    const human = await runCli(['activity', '--agent', EVIL_CLIENT, ...serve.flags])
    expect(human.code).toBe(0)
    expect(human.stdout).not.toMatch(RAW_UNSAFE)
    expect(human.stdout).toContain('evil\\u001b]52;c;cHduZWQ=\\u0007\\u009b31m\\u202egnp.exe\\u200b<img')
    expect(human.stdout).toContain('notes \\u001b]0;owned\\u0007 \\u202eevil\\u2066')
    expect(human.stdout).toContain('notes:read\\u001b[2J\\u009b2J_notes')

    const json = await runCli(['activity', '--agent', EVIL_CLIENT, '--limit', '500', '--json', ...serve.flags])
    expect(json.code).toBe(0)
    expect(json.stdout).not.toMatch(RAW_UNSAFE)
    // the same value as the API's answer
    expect(JSON.parse(json.stdout)).toEqual(api)

    for (const flags of [[], ['--details']]) {
      const agents = await runCli(['agents', 'list', ...flags, ...serve.flags])
      expect(agents.code).toBe(0)
      expect(agents.stdout).not.toMatch(RAW_UNSAFE)
      expect(agents.stdout).toContain('evil\\u001b]52;c;cHduZWQ=\\u0007')
    }
    const agentsJson = await runCli(['agents', 'list', '--json', ...serve.flags])
    expect(agentsJson.stdout).not.toMatch(RAW_UNSAFE)
    const listed = (JSON.parse(agentsJson.stdout) as { agents: AgentView[] }).agents
    expect(listed.map((a) => a.name)).toContain(EVIL_CLIENT)
  }, 60_000)
})

describe('the record stays within activity.max_mb', () => {
  it('deletes the oldest records past the budget and keeps the newest', async () => {
    const tmp = tempDir()
    const serve = await startServe({ configPath: config(tmp, { activity: { max_mb: 1 } }), dataDir: path.join(tmp, 'data') })
    const client = await connectAs(serve, 'burst')
    try {
      // blocked calls (a tool the config denies) with a full 1 KiB preview: ~1.3 KiB a record
      const filler = 'lorem ipsum '.repeat(16)
      let n = 0
      const worker = async (): Promise<void> => {
        while (n < 1000) {
          const i = n++
          await call(client, 'call_tool_destructive', { name: 'notes:wipe_notebook', args: { i, a: filler, b: filler, c: filler, d: filler, e: filler } })
        }
      }
      await Promise.all(Array.from({ length: 4 }, worker))
      const dir = activityDir(serve)
      // a segment pruned between the listing and its stat no longer counts (it is gone)
      const size = (f: string): number => fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.size ?? 0
      const total = fs.readdirSync(dir).reduce((sum, f) => sum + size(f), 0)
      const written = 1000 * 1300
      expect(written).toBeGreaterThan(1024 * 1024)
      // the budget, plus at most the segment being written (a tenth of it, at least 64 KiB)
      expect(total).toBeLessThanOrEqual(1024 * 1024 + 110 * 1024)
      const page = (await serve.api<ActivityPage>('GET', '/api/v1/activity?limit=500')).json
      const all: string[] = page.events.map((e) => e.id)
      let cursor = page.next_cursor
      while (cursor) {
        const next = (await serve.api<ActivityPage>('GET', `/api/v1/activity?limit=500&cursor=${cursor}`)).json
        all.push(...next.events.map((e) => e.id))
        cursor = next.next_cursor
      }
      // the newest is kept: 1000 calls after one other record, notes starting to list its tools (on demand; the blocked calls start nothing)
      expect(Math.max(...all.map(Number))).toBe(1001)
      expect(Math.min(...all.map(Number))).toBeGreaterThan(1)
      expect(all.length).toBeLessThan(1000)
    } finally {
      await client.close()
      await stopProcess(serve.child)
    }
  }, 120_000)
})
