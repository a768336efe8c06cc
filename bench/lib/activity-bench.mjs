// The activity record's benchmarks: a filtered page over 100,000 recorded events (target
// ≤ 50 ms), and what recording adds to a call: the same call_tool_read through two agent
// servers over one core and one upstream, one recording and one not, interleaved (target
// ≤ 0.1 ms p50), plus the recorder's own cost per record.
import fs from 'node:fs'
import path from 'node:path'
import { loadCore } from './inproc.mjs'
import { FIXTURE, median, now, requireRoot, stats, tmpDir } from './util.mjs'

const AGENTS = ['reader', 'writer', 'ops', 'ci', null, null, 'claude', 'cursor']
const OUTCOMES = ['ok', 'ok', 'ok', 'ok', 'ok', 'error', 'blocked', 'timeout', 'cancelled']

function prng(seed) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** Appends `n` synthetic records (calls 80 %, searches 15 %, decisions 5 %) through the real store. */
function fill(store, n) {
  const rnd = prng(7)
  const pick = (a) => a[Math.floor(rnd() * a.length)]
  const t0 = Date.now() - n * 50
  for (let i = 0; i < n; i++) {
    const ts = new Date(t0 + i * 50).toISOString()
    const agent = pick(AGENTS)
    const client = agent ? 'claude-code' : pick(['cursor', 'vscode'])
    const server = `srv${Math.floor(rnd() * 50)}`
    const tool = `${server}:tool_${Math.floor(rnd() * 100)}`
    const r = rnd()
    if (r < 0.8) {
      const outcome = pick(OUTCOMES)
      store.append(
        {
          kind: 'call',
          ts,
          agent,
          client,
          tool,
          server,
          variant: 'read',
          outcome,
          ...(outcome === 'blocked' ? { status: 'disabled_by_user' } : {}),
          duration_ms: rnd() * 20,
          result_bytes: Math.floor(rnd() * 5000),
          args_preview: JSON.stringify({ path: `/home/me/notes/${i}.md`, limit: 10 }),
          args_sha256: 'f'.repeat(64),
        },
        t0 + i * 50,
      )
    } else if (r < 0.95) {
      store.append(
        { kind: 'search', ts, agent, client, query: `find tool number ${i % 300}`, include_disabled: false, hits: 3, locked_only: false, locked: [] },
        t0 + i * 50,
      )
    } else {
      store.append(
        { kind: 'decision', ts, agent: null, client: null, action: 'approve', server, tool: 'tool_1', by: 'user', via: 'ui', message: 'Approved.' },
        t0 + i * 50,
      )
    }
  }
}

export async function activityQueryBench({ events = 100_000, reps = 200 } = {}) {
  const { ActivityStore, queryPage } = loadCore()
  const dir = path.join(tmpDir(), 'activity')
  const limits = { maxBytes: 1e12, retentionMs: 1e12, segmentBytes: 8 * 1024 * 1024 }
  let store = new ActivityStore(dir, limits)
  let t = now()
  fill(store, events)
  const appendMs = now() - t
  store.close()
  const bytes = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0)
  // a fresh store, as after a restart: the index is built by the first query
  store = new ActivityStore(dir, limits)
  t = now()
  queryPage(store, { limit: 50 }, Date.now())
  const loadMs = now() - t
  const filters = [
    ['newest 50, no filter', { limit: 50 }],
    ['agent=reader & outcome=blocked', { agent: 'reader', outcome: 'blocked', limit: 50 }],
    ['tool=srv7:tool_3 (rare: scans everything)', { tool: 'srv7:tool_3', limit: 50 }],
    ['kind=decision & server=srv1', { kind: 'decision', server: 'srv1', limit: 50 }],
    ['agent=cursor (a local client) & since=1h', { agent: 'cursor', since: '1h', limit: 50 }],
    ['outcome=cancelled, 3rd page (cursor)', null],
    ['no match at all (scans everything)', { agent: 'nobody', limit: 50 }],
  ]
  const rows = []
  for (const [label, q0] of filters) {
    let q = q0
    if (!q) {
      const p1 = queryPage(store, { outcome: 'cancelled', limit: 50 }, Date.now())
      const p2 = queryPage(store, { outcome: 'cancelled', limit: 50, cursor: p1.next_cursor }, Date.now())
      q = { outcome: 'cancelled', limit: 50, cursor: p2.next_cursor }
    }
    const lat = []
    let got = 0
    for (let i = 0; i < reps; i++) {
      const s = now()
      got = queryPage(store, q, Date.now()).events.length
      lat.push(now() - s)
    }
    rows.push({ label, events: got, ...stats(lat) })
  }
  store.close()
  return { events, bytes, appendMs, loadMs, rows }
}

export async function recordingOverheadBench({ calls = 2000, warm = 200 } = {}) {
  const { startCore, createAgentServer, FULL_SCOPE } = loadCore()
  const { Client } = requireRoot('@modelcontextprotocol/sdk/client/index.js')
  const { InMemoryTransport } = requireRoot('@modelcontextprotocol/sdk/inMemory.js')
  const dir = tmpDir()
  const toolsFile = path.join(dir, 'tools.json')
  fs.writeFileSync(toolsFile, JSON.stringify([{ name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } }]))
  const configPath = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(
    configPath,
    JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [FIXTURE, '--tools', toolsFile], quarantined: false } } }),
  )
  const { silentLogger } = loadCore()
  const core = await startCore({ configPath, dataDir: path.join(dir, 'data'), serveHttp: false, logger: silentLogger() })
  await core.settled(30000)
  const connect = async (deps) => {
    const server = createAgentServer(deps, FULL_SCOPE)
    const [a, b] = InMemoryTransport.createLinkedPair()
    const client = new Client({ name: 'bench', version: '1' })
    await server.connect(b)
    await client.connect(a)
    return client
  }
  const { activity, ...without } = core.agentDeps
  const on = await connect(core.agentDeps)
  const off = await connect(without)
  const args = { name: 'notes:read_notes', args: { path: '/home/me/notes/today.md', limit: 10 } }
  const one = async (c) => {
    const s = now()
    await c.callTool({ name: 'call_tool_read', arguments: args })
    return now() - s
  }
  for (let i = 0; i < warm; i++) {
    await one(on)
    await one(off)
  }
  const lOn = []
  const lOff = []
  const diff = []
  for (let i = 0; i < calls; i++) {
    // alternate which goes first, so neither always gets the warmer path
    let x, y
    if (i % 2) {
      x = await one(on)
      y = await one(off)
    } else {
      y = await one(off)
      x = await one(on)
    }
    lOn.push(x)
    lOff.push(y)
    diff.push(x - y)
  }
  // the recorder alone: the work added to each call, with the store writing to disk
  const rec = []
  for (let i = 0; i < calls; i++) {
    const s = now()
    activity.call(
      { agent: null, client: 'bench' },
      {
        tool: 'notes:read_notes',
        serverName: 'notes',
        server: core.catalog.serverConfig('notes'),
        variant: 'read',
        args: args.args,
        outcome: 'ok',
        durationMs: 0.3,
        resultBytes: 120,
      },
    )
    rec.push(now() - s)
  }
  const recorded = activity.page({ kind: 'call', limit: 1 }).events.length
  await on.close()
  await off.close()
  await core.stop()
  return { calls, on: stats(lOn), off: stats(lOff), pairedDiffMedian: median(diff), recorder: stats(rec), recorded }
}
