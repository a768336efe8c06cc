// The activity record end to end against a real `toolgate serve` with a real upstream: agents
// search and call over MCP (ok, error, timeout, cancelled, blocked, out of scope), people decide
// through the API, the CLI and the config file; GET /api/v1/activity pages and filters it, the
// SSE stream announces each record, `toolgate activity` prints it (escaped) live or from the
// files, no secret reaches the files, and every acknowledged record survives kill -9.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActivityEvent, ActivityPage, CallEvent, DecisionEvent, SearchEvent } from '../../src/shared/activity'
import {
  openEvents,
  runCli,
  startServe,
  stopProcess,
  tempDir,
  waitFor,
  waitForServerState,
  waitForToolStatus,
  writeJson,
  type EventStream,
  type Serve,
} from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'
import { activityFiles, notesServer } from '../helpers/notes-world'

const SECRET_ENV = 'notes-env-secret-7f3a9c2e41'

useCleanup()

function configFor(tmp: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    call_timeout_ms: 1500,
    agents: [{ name: 'reader', servers: ['notes'], permissions: ['read'] }],
    mcpServers: { notes: notesServer(tmp, SECRET_ENV, extra) },
  }
}

describe('activity over a live `toolgate serve`', () => {
  let tmp: string
  let serve: Serve
  let admin: McpHandle
  let reader: McpHandle
  let sse: EventStream
  const get = async <T = ActivityPage>(q: string) => serve.api<T>('GET', `/api/v1/activity${q}`)

  beforeAll(async () => {
    tmp = tempDir()
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), configFor(tmp))
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    sse = await openEvents(serve)
    admin = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    reader = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${token}` })
  }, 60_000)

  afterAll(async () => {
    sse?.close()
    await admin?.close()
    await reader?.close()
  })

  it('records what agents search for and call, with outcome, reason, duration and size', async () => {
    await admin.call('retrieve_tools', { query: 'wipe' })
    expect(textOf(await admin.call('call_tool_read', { name: 'notes:read_notes', args: { page: 1, note: SECRET_ENV } })).length).toBeGreaterThan(0)
    await admin.call('call_tool_read', { name: 'notes:read_notes', args: { fail: 'disk on fire' } })
    await admin.call('call_tool_read', { name: 'notes:read_notes', args: { sleep_ms: 5000 } })
    const ac = new AbortController()
    const cancelled = admin.client.callTool({ name: 'call_tool_read', arguments: { name: 'notes:read_notes', args: { sleep_ms: 1200 } } }, undefined, {
      signal: ac.signal,
    })
    setTimeout(() => ac.abort(), 200)
    await expect(cancelled).rejects.toThrow()
    await admin.call('call_tool_destructive', { name: 'notes:wipe_notebook' })
    await reader.call('call_tool_read', { name: 'notes:write_note', args: { text: 'x' } })

    const page = await waitFor(
      async () => {
        const p = (await get('?kind=call&limit=10')).json
        return p.events.length >= 6 ? p : null
      },
      20_000,
      'six call records',
    )
    const calls = page.events as CallEvent[]
    // newest first
    expect(calls.map((c) => [c.agent, c.tool, c.outcome, c.status ?? null])).toEqual([
      ['reader', 'notes:write_note', 'blocked', 'out_of_scope'],
      [null, 'notes:wipe_notebook', 'blocked', 'disabled_by_config'],
      [null, 'notes:read_notes', 'cancelled', null],
      [null, 'notes:read_notes', 'timeout', null],
      [null, 'notes:read_notes', 'error', null],
      [null, 'notes:read_notes', 'ok', null],
    ])
    expect(Number(calls[0].id)).toBeGreaterThan(Number(calls[5].id))
    const ok = calls[5]
    expect(ok.client).toBe('toolgate-it-http')
    expect(ok.variant).toBe('read')
    expect(ok.result_bytes).toBeGreaterThan(20)
    expect(ok.duration_ms).toBeGreaterThan(0)
    expect(calls[3].duration_ms).toBeGreaterThanOrEqual(1400)
    const search = (await get('?kind=search')).json.events[0] as SearchEvent
    expect(search).toMatchObject({ query: 'wipe', hits: 0, locked_only: true, locked: ['notes:wipe_notebook'] })
    // every record was announced on the SSE stream
    for (const c of calls) await sse.next('activity', 10_000, (e) => e.data.id === c.id)
  })

  it('filters by agent, server, tool, outcome and since, pages with next_cursor, and explains bad queries', async () => {
    const ids = async (q: string) => (await get(q)).json.events.map((e) => e.id)
    const all = (await get('?limit=500')).json.events
    expect((await get('?agent=reader')).json.events.every((e) => e.agent === 'reader')).toBe(true)
    expect((await ids('?agent=reader')).length).toBeGreaterThanOrEqual(1)
    // an unnamed local session is found by its client name
    expect((await get('?agent=toolgate-it-http&kind=call')).json.events.length).toBe(5)
    expect((await get('?outcome=blocked')).json.events.map((e) => (e as CallEvent).status)).toEqual(['out_of_scope', 'disabled_by_config'])
    expect((await get('?tool=notes:read_notes')).json.events.length).toBe(4)
    expect((await get('?tool=wipe_notebook')).json.events.length).toBe(1)
    expect((await get('?server=notes&kind=call')).json.events.length).toBe(6)
    expect(await ids('?since=10m')).toEqual(all.map((e) => e.id))
    expect(await ids(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([])
    // an empty parameter is no filter (a form or the URL template of docs/contract.md §7 sends them)
    expect(await ids('?agent=&server=&tool=&kind=&outcome=&since=&limit=&cursor=')).toEqual(all.map((e) => e.id))
    expect(await ids('?agent=&server=notes&kind=call')).toEqual(all.filter((e) => e.kind === 'call' && e.server === 'notes').map((e) => e.id))
    const p1 = (await get('?limit=3')).json
    const p2 = (await get(`?limit=3&cursor=${p1.next_cursor}`)).json
    expect([...p1.events, ...p2.events].map((e) => e.id)).toEqual(all.slice(0, 6).map((e) => e.id))
    for (const [q, msg] of [
      ['?kind=calls', /kind must be one of search, call, decision/],
      ['?since=last+week', /since must be an ISO time/],
      ['?limit=9999', /limit must be an integer from 1 to 500/],
      ['?colour=red', /unknown parameter\(s\) colour/],
    ] as const) {
      const r = await serve.api<{ error: { code: string; message: string } }>('GET', `/api/v1/activity${q}`)
      expect(r.status).toBe(400)
      expect(r.json.error.message).toMatch(msg)
    }
  })

  it('records decisions with who and from where: the web UI, the bare API, the CLI, the operator’s config edit', async () => {
    await serve.api('POST', '/api/v1/servers/notes/tools/write_note/disable', { 'x-toolgate-client': 'ui' })
    await serve.api('POST', '/api/v1/servers/notes/tools/write_note/enable')
    const cli = await runCli(['tools', 'disable', 'notes:write_note', ...serve.flags])
    expect(cli.code).toBe(0)
    // the operator edits the file: a decision "by operator via config"
    const cfg = configFor(tmp, { disabled_tools: ['wipe_notebook', 'read_notes'] })
    writeJson(serve.configPath, cfg)
    const decisions = await waitFor(
      async () => {
        const d = (await get('?kind=decision')).json.events as DecisionEvent[]
        return d.length >= 4 ? d : null
      },
      20_000,
      'four decisions',
    )
    expect(decisions.map((d) => [d.action, d.tool, d.by, d.via])).toEqual([
      ['disable', 'read_notes', 'operator', 'config'],
      ['disable', 'write_note', 'user', 'cli'],
      ['enable', 'write_note', 'user', 'api'],
      ['disable', 'write_note', 'user', 'ui'],
    ])
  })

  it('`toolgate activity` prints the live record, filtered, with control characters escaped', async () => {
    await admin.call('retrieve_tools', { query: 'notes \u001b]0;pwned\u0007 \u001b[2J now' })
    await waitFor(
      async () => (await get('?kind=search&limit=1')).json.events[0]?.kind === 'search' && (await get('?kind=search')).json.events.length === 2,
      10_000,
      'the second search',
    )
    const human = await runCli(['activity', '--kind', 'search', ...serve.flags])
    expect(human.code).toBe(0)
    expect(human.stdout).not.toContain('\u001b')
    expect(human.stdout).not.toContain('\u0007')
    expect(human.stdout).toContain('notes \\u001b]0;pwned\\u0007 \\u001b[2J now')
    // oldest first for people: the first search is on the first line
    expect(human.stdout.trim().split('\n')[0]).toContain('"wipe"')
    const json = await runCli(['activity', '--outcome', 'blocked', '--json', ...serve.flags])
    const page = JSON.parse(json.stdout) as ActivityPage
    expect(page.events.map((e) => (e as CallEvent).status)).toEqual(['out_of_scope', 'disabled_by_config'])
    // --server, --tool and --agent ask the API the same question
    const narrowed = await runCli(['activity', '--server', 'notes', '--tool', 'read_notes', '--agent', 'toolgate-it-http', '--json', ...serve.flags])
    const byApi = (await get('?server=notes&tool=read_notes&agent=toolgate-it-http')).json
    expect(byApi.events.length).toBeGreaterThanOrEqual(4)
    expect(JSON.parse(narrowed.stdout)).toEqual(byApi)
    const bad = await runCli(['activity', '--since', 'soon', ...serve.flags])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--since must be an ISO time/)
  })

  it('`toolgate activity --follow` prints new records as they happen', async () => {
    const { spawn } = await import('node:child_process')
    const { BIN, ROOT, cliEnv, track } = await import('../helpers/cli')
    const child = spawn(process.execPath, [BIN, 'activity', '--follow', '--json', '--kind', 'call', '--limit', '1', ...serve.flags], {
      cwd: ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    track(child.pid)
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    try {
      await waitFor(() => out.split('\n').filter(Boolean).length >= 1, 15_000, 'the last call record')
      await waitFor(
        async () => {
          await admin.call('call_tool_read', { name: 'notes:write_note', args: { follow: true } })
          return out.includes('\\"follow\\":true')
        },
        15_000,
        'a followed record',
      )
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ActivityEvent)
      expect(lines.every((e) => e.kind === 'call')).toBe(true)
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('never writes a secret from the env or the args, and reads the files when nothing runs', async () => {
    const before = (await get('?limit=500')).json.events
    expect(activityFiles(serve.dataDir)).not.toContain(SECRET_ENV)
    expect(activityFiles(serve.dataDir)).toContain('notes:read_notes')
    await reader.close()
    await admin.close()
    sse.close()
    await stopProcess(serve.child)
    const offline = await runCli(['activity', '--json', '--limit', '500', ...serve.flags])
    expect(offline.code).toBe(0)
    const page = JSON.parse(offline.stdout) as ActivityPage
    expect(page.events.map((e) => e.id).slice(-before.length)).toEqual(before.map((e) => e.id))
  })
})

describe('crash safety', () => {
  it('every record acknowledged before kill -9 is on disk', async () => {
    const tmp = tempDir()
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), configFor(tmp))
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    const client = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    const acked: string[] = []
    let n = 0
    let stop = false
    const worker = async (): Promise<void> => {
      while (!stop) {
        const tag = `burst-${n++}`
        try {
          await client.call('call_tool_read', { name: 'notes:read_notes', args: { tag } }, 5000)
          acked.push(tag)
        } catch {
          return // the process is gone
        }
      }
    }
    const workers = Array.from({ length: 6 }, worker)
    await waitFor(() => acked.length >= 60, 30_000, '60 acknowledged calls')
    process.kill(serve.pid, 'SIGKILL')
    stop = true
    await Promise.all(workers)
    await serve.exited
    const offline = await runCli(['activity', '--json', '--kind', 'call', '--limit', '500', ...serve.flags])
    expect(offline.code).toBe(0)
    const recorded = new Set((JSON.parse(offline.stdout) as ActivityPage).events.map((e) => JSON.parse((e as CallEvent).args_preview ?? '{}').tag as string))
    const lost = acked.filter((t) => !recorded.has(t))
    expect(acked.length).toBeGreaterThanOrEqual(60)
    expect(lost).toEqual([])
    // a restart continues the ids after the last record on disk
    const again = await startServe({ configPath, dataDir: serve.dataDir })
    // its tools are known again (from the last run, or listed anew if kill -9 came before catalog.json was written)
    await waitForToolStatus(again, 'notes:write_note', 'callable')
    expect((await again.api('POST', '/api/v1/servers/notes/tools/write_note/disable')).status).toBe(200)
    const page = (await again.api<ActivityPage>('GET', '/api/v1/activity?limit=2')).json
    expect(Number(page.events[0].id)).toBeGreaterThan(Number(page.events[1].id))
    await stopProcess(again.child)
  }, 120_000)
})
