// Section 10 (issue 29): servers start on demand and stop when idle.
//   rest       memory of `toolgate serve` plus every process under it with N configured fixture
//              servers: all running (lifecycle "always"), at rest on demand (each listed its tools
//              once, then stopped after idle_stop_s), and the proxy alone (no server configured)
//   firstCall  call_tool_read over HTTP to a stopped on-demand server (spawn, sandbox, initialize,
//              tools/list, the gate, the call) against the same call to it running, interleaved
//   restart    `toolgate serve` restarted on a data dir whose N servers all ran before: spawn →
//              listening → every tool searchable and callable on demand (nothing starts), against
//              the same restart with lifecycle "always" (every server started and listed again)
import fs from 'node:fs'
import path from 'node:path'
import { tmpDir, now, median, percentile, freePort, waitFor } from './util.mjs'
import { writeFixtureConfig, startServe, control, instanceOf, settledMemory, stopToolgate, httpClient, childrenOf, BENCH_KEY, QUIET_MS } from './procs.mjs'

const log = (...a) => process.stderr.write(`  [lifecycle] ${a.join(' ')}\n`)

/** n fixture servers with one read-only tool each (distinct words, so each is found by its own query). */
function spec(n) {
  return {
    servers: Array.from({ length: n }, (_, i) => ({
      name: `s${i}`,
      tools: [
        {
          name: `read_${i}`,
          description: `Read record ${i} of the ledger`,
          inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
          annotations: { readOnlyHint: true },
        },
      ],
    })),
  }
}

/** Every process under `pid` (children, grandchildren: sandbox wrappers, pasta, the servers). */
function descendants(pid) {
  const out = []
  const stack = [pid]
  while (stack.length) {
    for (const c of childrenOf(stack.pop())) {
      out.push(c)
      stack.push(c)
    }
  }
  return out
}

/** Proportional set size (shared pages split between their users) and RSS of one pid, bytes. */
function memOf(pid) {
  const read = (file, key) => {
    try {
      const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(file, 'utf8'))
      return m ? Number(m[1]) * 1024 : 0
    } catch {
      return 0
    }
  }
  return { pss: read(`/proc/${pid}/smaps_rollup`, 'Pss'), rss: read(`/proc/${pid}/status`, 'VmRSS') }
}

/** Memory of serve and its whole process tree: PSS sums (no double counting of shared pages) and RSS sums. */
function treeMemory(pid) {
  const own = memOf(pid)
  const kids = descendants(pid).map(memOf)
  const sum = (k) => kids.reduce((s, m) => s + m[k], 0)
  return { procs: 1 + kids.length, ownPss: own.pss, ownRss: own.rss, treePss: own.pss + sum('pss'), treeRss: own.rss + sum('rss') }
}

async function serveOn(dir, config, dataDir) {
  const port = await freePort()
  const memFile = path.join(dir, `mem-${port}.json`)
  const t0 = now()
  const child = startServe({ config, dataDir, port, logFile: path.join(dir, 'serve.log'), memFile })
  return { child, port, memFile, t0, url: `http://127.0.0.1:${port}` }
}

const status = (url) => control(url, '/api/v1/status')

/** Waits until the owner answers and `fn(status)` holds, polling every `everyMs`. */
async function until(url, what, fn, everyMs = 100, timeoutMs = 180000) {
  return waitFor(what, async () => fn(await status(url)), timeoutMs, everyMs)
}

/** Memory of a serve once nothing changes any more: quiet for QUIET_MS (V8 gave back the young generation), a GC'd heap, then the tree. */
async function restMemory(s) {
  const m = await settledMemory(s.child, s.memFile, QUIET_MS)
  return { heapUsed: m.heapUsed, ...treeMemory(s.child.pid) }
}

export async function memoryAtRest(n = 50) {
  const out = {}
  // the proxy alone: no server configured
  {
    const dir = tmpDir()
    const s = await serveOn(dir, writeFixtureConfig(dir, spec(0)), path.join(dir, 'data'))
    await waitFor('instance.json', () => instanceOf(path.join(dir, 'data'))?.pid === s.child.pid, 60000, 50)
    out.alone = await restMemory(s)
    await stopToolgate(s.child)
  }
  // every server running
  {
    const dir = tmpDir()
    const config = writeFixtureConfig(dir, spec(n))
    const cfg = JSON.parse(fs.readFileSync(config, 'utf8'))
    for (const e of Object.values(cfg.mcpServers)) e.lifecycle = 'always'
    fs.writeFileSync(config, JSON.stringify(cfg))
    const s = await serveOn(dir, config, path.join(dir, 'data'))
    await until(s.url, `${n} servers connected`, (st) => st.servers.connected === n && st.tools.callable === n, 250).catch(async (e) => {
      await stopToolgate(s.child)
      throw e
    })
    out.always = await restMemory(s)
    await stopToolgate(s.child)
  }
  // on demand: each lists its tools once (a fresh data dir), then stops after idle_stop_s (1 s here)
  {
    const dir = tmpDir()
    const config = writeFixtureConfig(dir, spec(n), { extra: { idle_stop_s: 1 } })
    const dataDir = path.join(dir, 'data')
    const s = await serveOn(dir, config, dataDir)
    await until(s.url, `${n} servers to list their tools and stop`, (st) => st.tools.callable === n && st.servers.connected === 0, 250).catch(async (e) => {
      await stopToolgate(s.child)
      throw e
    })
    await waitFor('the servers’ processes to be gone', () => descendants(s.child.pid).length === 0, 30000, 100).catch(() => {})
    out.onDemand = await restMemory(s)
    await stopToolgate(s.child)
    out.dataDir = { dir, config, dataDir }
  }
  out.n = n
  log(
    `${n} servers: always ${(out.always.treePss / 1048576).toFixed(0)} MB PSS in ${out.always.procs} processes; on demand at rest ${(out.onDemand.treePss / 1048576).toFixed(0)} MB in ${out.onDemand.procs}; proxy alone ${(out.alone.treePss / 1048576).toFixed(0)} MB`,
  )
  return out
}

/**
 * Restarts of serve on a data dir whose servers all ran: spawn → listening (the log) → the
 * control API says every tool callable (polled every 5 ms) and retrieve_tools finds a tool of the
 * last server. `lifecycle` "always" restarts every server and waits for each to list its tools.
 */
export async function restartToSearchable({ dir, config, dataDir }, n, rounds = 3) {
  const rows = { onDemand: [], always: [] }
  const alwaysConfig = path.join(dir, 'mcp_config.always.json')
  const cfg = JSON.parse(fs.readFileSync(config, 'utf8'))
  for (const e of Object.values(cfg.mcpServers)) e.lifecycle = 'always'
  fs.writeFileSync(alwaysConfig, JSON.stringify(cfg))
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['onDemand', 'always']) {
      const logFile = path.join(dir, 'serve.log')
      fs.rmSync(logFile, { force: true })
      const s = await serveOn(dir, mode === 'always' ? alwaysConfig : config, dataDir)
      try {
        const inst = await waitFor(
          'instance.json of this serve',
          () => (instanceOf(dataDir)?.pid === s.child.pid && instanceOf(dataDir)?.url ? instanceOf(dataDir) : null),
          60000,
          5,
        )
        await until(
          inst.url,
          `every tool callable (${mode})`,
          (st) => st.tools.callable === n && (mode === 'onDemand' || st.servers.connected === n),
          5,
          120000,
        )
        const ready = Date.now()
        const hit = await fetch(`${inst.url}/api/v1/search?q=${encodeURIComponent(`read record ${n - 1} of the ledger`)}`, {
          headers: { authorization: `Bearer ${BENCH_KEY}` },
        })
          .then((x) => x.json())
          .catch(() => null)
        const listening = fs
          .readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"msg":"listening"'))
          .map((l) => JSON.parse(l).time)[0]
        const spawnedAt = Date.now() - (now() - s.t0)
        const found = JSON.stringify(hit ?? '').includes(`s${n - 1}:read_${n - 1}`)
        const started = descendants(s.child.pid).length
        rows[mode].push({ spawnToListening: listening - spawnedAt, listeningToReady: ready - listening, spawnToReady: ready - spawnedAt, found, started })
      } finally {
        await stopToolgate(s.child)
      }
    }
  }
  const m = (mode, k) => median(rows[mode].map((x) => x[k]))
  const pick = (mode) => ({
    spawnToListening: m(mode, 'spawnToListening'),
    listeningToReady: m(mode, 'listeningToReady'),
    spawnToReady: m(mode, 'spawnToReady'),
    found: rows[mode].every((x) => x.found),
    processes: Math.max(...rows[mode].map((x) => x.started)),
  })
  const out = { n, rounds, onDemand: pick('onDemand'), always: pick('always') }
  log(
    `restart with ${n} servers: on demand listening → searchable ${out.onDemand.listeningToReady.toFixed(0)} ms (spawn → searchable ${out.onDemand.spawnToReady.toFixed(0)} ms); always ${out.always.listeningToReady.toFixed(0)} ms (${out.always.spawnToReady.toFixed(0)} ms)`,
  )
  return out
}

/**
 * The first call to a stopped server against a call to it running: one on-demand fixture server
 * (default sandbox) with idle_stop_s 1; each round waits until it stopped, calls it (cold), and
 * calls it again at once (warm). Interleaved, so load hits both alike.
 */
export async function firstCall(rounds = 10) {
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec(1), { extra: { idle_stop_s: 1 } })
  const dataDir = path.join(dir, 'data')
  const s = await serveOn(dir, config, dataDir)
  const cold = []
  const warm = []
  let errors = 0
  let http
  try {
    await until(s.url, 'the server to list its tools and stop', (st) => st.tools.callable === 1 && st.servers.connected === 0, 100)
    http = await httpClient(`${s.url}/mcp`)
    const call = async (id) => {
      const t = now()
      const r = await http.callTool('call_tool_read', { name: 's0:read_0', args: { id } })
      if (r.isError) errors++
      return now() - t
    }
    for (let i = 0; i < rounds; i++) {
      await until(s.url, 'the server to stop', (st) => st.servers.connected === 0, 50, 30000)
      await waitFor('its processes to be gone', () => descendants(s.child.pid).length === 0, 10000, 20)
      cold.push(await call(`cold-${i}`))
      warm.push(await call(`warm-${i}`))
    }
  } finally {
    await http?.close()
    await stopToolgate(s.child)
  }
  const st = (xs) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95), max: Math.max(...xs) })
  const out = { rounds, cold: st(cold), warm: st(warm), errors }
  log(`first call to a stopped server p50 ${out.cold.p50.toFixed(0)} ms (p95 ${out.cold.p95.toFixed(0)}), running p50 ${out.warm.p50.toFixed(1)} ms`)
  return out
}
