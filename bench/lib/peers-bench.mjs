// Section 11 (issue 29): Toolgate beside the peers people install instead (mcp-hub, mcp-proxy,
// supergateway), same fixture upstreams, same machine, one run. For 1/10/50 fixture servers
// (lifecycle "always" for Toolgate) each system is started, timed from spawn until every tool is
// callable, measured at rest (settled RSS and heap of the proxy), then called over HTTP.
//   start   spawn → every upstream's tool callable: wall time, CPU of the proxy process(es), CPU
//           of the whole tree (proxy + sandbox wrappers + the fixture servers), both without what
//           the readiness polls cost the proxy (measured after the start: POLL_COST_SAMPLES polls)
//   call    after WARM_CALLS calls (JIT warm-up), one tool of the last server: Toolgate's call_tool_read over Streamable HTTP /mcp, the
//           peer's own tools/call (mcp-hub: its /mcp SSE endpoint; the bridges: /mcp Streamable
//           HTTP); p50 and CPU of the proxy per call
//   memory  at rest: quiet for QUIET_MS (procs.mjs), then settled (two full GCs through
//           bench/lib/gc-hook.cjs) RSS and heapUsed of the proxy
// mcp-proxy and supergateway bridge one stdio server per process: N servers are N bridges.
// The peers live in bench/peers (own package.json + lock): they bring their own SDK copies,
// express and axios (213 packages), which stay out of Toolgate's dependency tree.
import fs from 'node:fs'
import path from 'node:path'
import { spawn, execFileSync } from 'node:child_process'
import { BENCH, FIXTURE, tmpDir, now, stats, median, freePort, waitFor, sleep, track, stopProcess, cpuMsOf, requireRoot } from './util.mjs'
import { startServe, control, instanceOf, settledMemory, stopToolgate, childrenOf, BENCH_KEY, QUIET_MS } from './procs.mjs'

const log = (...a) => process.stderr.write(`  [peers] ${a.join(' ')}\n`)
export const PEERS_DIR = path.join(BENCH, 'peers')
const PINNED = JSON.parse(fs.readFileSync(path.join(PEERS_DIR, 'package.json'), 'utf8')).dependencies
const peerFile = (pkg, rel) => path.join(PEERS_DIR, 'node_modules', pkg, rel)

/** Installs the pinned peers into bench/peers (npm ci from its lock) unless they are there. */
export function ensurePeers() {
  const have = () =>
    Object.entries(PINNED).every(([name, v]) => {
      try {
        return JSON.parse(fs.readFileSync(peerFile(name, 'package.json'), 'utf8')).version === v
      } catch {
        return false
      }
    })
  if (have()) return { ok: true }
  log(
    `installing ${Object.entries(PINNED)
      .map(([n, v]) => `${n}@${v}`)
      .join(', ')} into bench/peers (npm ci) …`,
  )
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      cwd: PEERS_DIR,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 300000,
    })
  } catch (e) {
    return {
      ok: false,
      reason: `npm ci in bench/peers failed (is the npm registry reachable?): ${String(e.stderr ?? e.message)
        .trim()
        .split('\n')
        .slice(-3)
        .join(' ')}`,
    }
  }
  return have() ? { ok: true } : { ok: false, reason: 'bench/peers installed, but not the pinned versions' }
}

/** n fixture servers with one read-only tool each, their tool files written to `dir` (mem-ab uses them too). */
export function writeTools(dir, n) {
  return Array.from({ length: n }, (_, i) => {
    const file = path.join(dir, `tools-s${i}.json`)
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          name: `read_${i}`,
          description: `Read record ${i} of the ledger`,
          inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
          annotations: { readOnlyHint: true },
        },
      ]),
    )
    return { name: `s${i}`, args: [FIXTURE, '--tools', file, '--name', `s${i}`] }
  })
}

const { Client } = requireRoot('@modelcontextprotocol/sdk/client/index.js')
const { StreamableHTTPClientTransport } = requireRoot('@modelcontextprotocol/sdk/client/streamableHttp.js')
const { SSEClientTransport } = requireRoot('@modelcontextprotocol/sdk/client/sse.js')

/** An SDK v1 client (the same client library for every system) over Streamable HTTP or SSE. */
async function mcpClient(url, { sse = false, key } = {}) {
  const headers = key ? { Authorization: `Bearer ${key}` } : {}
  const client = new Client({ name: 'bench-peers', version: '1.0.0' })
  const transport = sse
    ? new SSEClientTransport(new URL(url), { requestInit: { headers } })
    : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  try {
    await client.connect(transport)
  } catch (e) {
    // a failed connect (the port not listening yet) leaves an SSE EventSource reconnecting forever
    await transport.close().catch(() => {})
    throw e
  }
  return {
    client,
    close: async () => {
      await transport.terminateSession?.().catch(() => {})
      await client.close().catch(() => {})
    },
  }
}

/** Connects (retrying while the port is not listening) and polls tools/list until `want` tools are listed; counts the polls. */
async function readyByToolsList(url, want, opts, everyMs) {
  const c = await waitFor(`${url} to accept an MCP client`, () => mcpClient(url, opts).catch(() => null), 180000, everyMs)
  let polls = 0
  await waitFor(
    `${url} to list ${want} tools`,
    async () => {
      polls++
      return (await c.client.listTools()).tools.length >= want
    },
    180000,
    everyMs,
  )
  return { ...c, polls }
}

/** A node process with the GC hook (its memory at rest goes to `memFile`), its output to `logFile`, tracked for the end of the run. */
export function spawnNode(args, { env = {}, memFile, logFile, label }) {
  const out = fs.openSync(logFile, 'a')
  const child = spawn(process.execPath, ['--expose-gc', '--require', path.join(BENCH, 'lib/gc-hook.cjs'), ...args], {
    stdio: ['ignore', out, out],
    env: { ...process.env, TOOLGATE_BENCH_MEM_FILE: memFile, ...env },
  })
  fs.closeSync(out)
  track(child, label)
  return child
}

function descendants(pid) {
  const out = []
  const stack = [pid]
  while (stack.length)
    for (const c of childrenOf(stack.pop())) {
      out.push(c)
      stack.push(c)
    }
  return out
}
const treeCpu = (pids) => pids.reduce((s, p) => s + cpuMsOf(p) + descendants(p).reduce((t, d) => t + (cpuMsOf(d) || 0), 0), 0)
const ownCpu = (pids) => pids.reduce((s, p) => s + cpuMsOf(p), 0)

// The readiness poll (Toolgate: GET /api/v1/status, which describes every server; the peers:
// tools/list). What the polls cost the proxy is measured after the start (100 more polls) and
// taken out of its start CPU, so the figure is the start's own, whatever each poll costs.
const POLL_MS = 25
const POLL_COST_SAMPLES = 100
const WARM_CALLS = 300

/**
 * The systems. Each `start(dir, servers)` returns {procs: [{child, memFile}], clientFor: () => client,
 * tool, args} once every tool is callable.
 */
const SYSTEMS = {
  toolgate: { label: 'Toolgate (default sandbox)', sandbox: true },
  'toolgate-nosandbox': { label: 'Toolgate ("sandbox": false)', sandbox: false },
  'mcp-hub': { label: `mcp-hub ${PINNED['mcp-hub']}` },
  'mcp-proxy': { label: `mcp-proxy ${PINNED['mcp-proxy']} (one per server)` },
  supergateway: { label: `supergateway ${PINNED.supergateway} (one per server, --stateful)` },
}
export const SYSTEM_KEYS = Object.keys(SYSTEMS)
export const systemLabel = (k) => SYSTEMS[k].label

async function startToolgate(dir, servers, sandbox) {
  const dataDir = path.join(dir, 'data')
  const config = path.join(dir, 'mcp_config.json')
  const mcpServers = {}
  for (const s of servers)
    mcpServers[s.name] = { command: process.execPath, args: s.args, quarantined: false, lifecycle: 'always', ...(sandbox ? {} : { sandbox: false }) }
  fs.writeFileSync(config, JSON.stringify({ mcpServers }, null, 2))
  const port = await freePort()
  const memFile = path.join(dir, `mem-${port}.json`)
  const child = startServe({ config, dataDir, port, logFile: path.join(dir, 'serve.log'), memFile })
  const n = servers.length
  const inst = await waitFor(
    'instance.json',
    () => (instanceOf(dataDir)?.pid === child.pid && instanceOf(dataDir)?.url ? instanceOf(dataDir) : null),
    180000,
    POLL_MS,
  )
  let polls = 0
  const poll = async () => {
    const st = await control(inst.url, '/api/v1/status')
    return st.servers.connected === n && st.tools.callable === n
  }
  await waitFor(
    `${n} servers connected and callable`,
    () => {
      polls++
      return poll()
    },
    180000,
    POLL_MS,
  )
  const last = servers.length - 1
  return {
    polls,
    poll,
    procs: [{ child, memFile }],
    connect: () => mcpClient(`${inst.url}/mcp`, { key: BENCH_KEY }),
    call: (c, id) => c.client.callTool({ name: 'call_tool_read', arguments: { name: `s${last}:read_${last}`, args: { id } } }),
    stop: () => stopToolgate(child),
  }
}

/**
 * mcp-hub (pinned in bench/peers) on a free port with `servers`, its HOME and XDG dirs in `dir`
 * (it keeps state there), `env` added (a heap snapshot); mem-ab starts it the same way.
 */
export async function spawnHub(dir, servers, env = {}) {
  const config = path.join(dir, 'mcp-hub.json')
  const mcpServers = {}
  for (const s of servers) mcpServers[s.name] = { command: process.execPath, args: s.args }
  fs.writeFileSync(config, JSON.stringify({ mcpServers }, null, 2))
  const port = await freePort()
  const memFile = path.join(dir, `mem-${port}.json`)
  const home = path.join(dir, 'home')
  fs.mkdirSync(home, { recursive: true })
  const child = spawnNode([peerFile('mcp-hub', 'dist/cli.js'), '--port', String(port), '--config', config], {
    env: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local/share'),
      XDG_STATE_HOME: path.join(home, '.local/state'),
      ...env,
    },
    memFile,
    logFile: path.join(dir, 'mcp-hub.log'),
    label: 'mcp-hub',
  })
  return { child, memFile, url: `http://127.0.0.1:${port}/mcp` }
}

async function startHub(dir, servers) {
  const { child, memFile, url } = await spawnHub(dir, servers)
  const probe = await readyByToolsList(url, servers.length, { sse: true }, POLL_MS)
  await probe.close()
  const last = servers.length - 1
  return {
    polls: probe.polls,
    poll: (c) => c.client.listTools(),
    procs: [{ child, memFile }],
    connect: () => mcpClient(url, { sse: true }),
    call: (c, id) => c.client.callTool({ name: `s${last}__read_${last}`, arguments: { id } }),
    stop: () => stopProcess(child, 8000),
  }
}

/** One bridge process per server (mcp-proxy, supergateway): all started at once, ready when each lists its tool. */
async function startBridges(dir, servers, kind) {
  const procs = []
  const urls = []
  for (const s of servers) {
    const port = await freePort()
    const memFile = path.join(dir, `mem-${port}.json`)
    const logFile = path.join(dir, `${kind}-${s.name}.log`)
    const args =
      kind === 'mcp-proxy'
        ? [peerFile('mcp-proxy', 'dist/bin/mcp-proxy.mjs'), '--port', String(port), '--host', '127.0.0.1', '--', process.execPath, ...s.args]
        : [
            peerFile('supergateway', 'dist/index.js'),
            '--stdio',
            [process.execPath, ...s.args].map((a) => `'${a}'`).join(' '),
            '--outputTransport',
            'streamableHttp',
            '--stateful',
            '--port',
            String(port),
            '--logLevel',
            'none',
          ]
    procs.push({ child: spawnNode(args, { memFile, logFile, label: kind }), memFile })
    urls.push(`http://127.0.0.1:${port}/mcp`)
  }
  const probes = await Promise.all(urls.map((u) => readyByToolsList(u, 1, {}, POLL_MS)))
  await Promise.all(probes.map((p) => p.close()))
  const last = servers.length - 1
  return {
    // each bridge answered its own polls; one bridge's cost per poll stands for each
    polls: probes.reduce((t, p) => t + p.polls, 0),
    poll: (c) => c.client.listTools(),
    procs,
    connect: () => mcpClient(urls[last]),
    call: (c, id) => c.client.callTool({ name: `read_${last}`, arguments: { id } }),
    stop: () => Promise.all(procs.map((p) => stopProcess(p.child, 8000))),
  }
}

function start(key, dir, servers) {
  if (key === 'toolgate' || key === 'toolgate-nosandbox') return startToolgate(dir, servers, SYSTEMS[key].sandbox)
  if (key === 'mcp-hub') return startHub(dir, servers)
  return startBridges(dir, servers, key)
}

/** One full cycle of one system with n servers: start, memory at rest, calls. */
async function cycle(key, n, calls, { memory = true, warm = WARM_CALLS } = {}) {
  const dir = tmpDir('toolgate-peers-')
  const servers = writeTools(dir, n)
  const t0 = now()
  let sys
  try {
    sys = await start(key, dir, servers)
  } catch (e) {
    throw new Error(`${SYSTEMS[key].label} with ${n} servers did not get ready: ${e.message} (logs in ${dir})`)
  }
  const readyMs = now() - t0
  const pids = sys.procs.map((p) => p.child.pid)
  const startCpu = ownCpu(pids)
  const startTreeCpu = treeCpu(pids)
  const c = await sys.connect()
  try {
    let errors = 0
    const one = async (id) => {
      const r = await sys.call(c, id)
      if (r.isError || !JSON.stringify(r.content ?? '').includes(id)) errors++
    }
    await one('warm-0')
    // what one readiness poll costs the proxy, to take the polls out of its start CPU
    const pc0 = ownCpu(pids)
    for (let i = 0; i < POLL_COST_SAMPLES; i++) await sys.poll(c)
    const pollCpu = (ownCpu(pids) - pc0) / POLL_COST_SAMPLES
    const pollsCpu = sys.polls * pollCpu
    // memory at rest (every system quiet for QUIET_MS, so V8 gave back the young generation it
    // grew while starting): the whole fleet for bridges (each process is part of the proxy)
    // (the first round of each size only: it does not move between rounds, and the wait is long)
    const mem = { rss: NaN, heapUsed: NaN }
    if (memory) {
      mem.rss = 0
      mem.heapUsed = 0
      await sleep(QUIET_MS)
      for (const p of sys.procs) {
        const m = await settledMemory(p.child, p.memFile, 0)
        mem.rss += m.vmrss
        mem.heapUsed += m.heapUsed
      }
    }
    // JIT warm-up: with 30 calls first, Toolgate's CPU per call still held V8's optimizing
    // compiler (17 % of the process's CPU in perf, on its worker threads); a few hundred calls in it is done
    for (let i = 0; i < warm; i++) await one(`warm-${i}`)
    const lat = []
    const cpu0 = ownCpu(pids)
    for (let i = 0; i < calls; i++) {
      const t = now()
      await one(`call-${i}`)
      lat.push(now() - t)
    }
    const cpuPerCall = (ownCpu(pids) - cpu0) / calls
    return {
      readyMs,
      startCpu: startCpu - pollsCpu,
      startTreeCpu: startTreeCpu - pollsCpu,
      grossStartCpu: startCpu,
      polls: sys.polls,
      pollCpu,
      mem,
      call: stats(lat),
      cpuPerCall,
      errors,
    }
  } finally {
    await c.close()
    await sys.stop()
  }
}

/**
 * Every system at every size, `rounds` times, the systems' order rotated each round (load hits
 * each alike); a warm-up cycle per system first (file cache, JIT of npm's own code). Medians.
 */
export async function peersBench({ sizes = [1, 10, 50], rounds = 3, calls = 500, warm = WARM_CALLS, systems = SYSTEM_KEYS } = {}) {
  for (const k of systems) if (!SYSTEMS[k]) throw new Error(`unknown system "${k}"; systems: ${SYSTEM_KEYS.join(', ')}`)
  for (const k of systems) await cycle(k, 1, 20, { memory: false })
  const out = {}
  for (const n of sizes) {
    const runs = Object.fromEntries(systems.map((k) => [k, []]))
    for (let r = 0; r < rounds; r++) {
      const order = systems.map((_, j) => systems[(r + j) % systems.length])
      for (const k of order) {
        const x = await cycle(k, n, calls, { memory: r === 0, warm })
        runs[k].push(x)
        log(
          `${n} servers, round ${r + 1}: ${SYSTEMS[k].label}: ready ${x.readyMs.toFixed(0)} ms, CPU ${x.startCpu.toFixed(0)} ms (${x.grossStartCpu.toFixed(0)} with ${x.polls} polls at ${x.pollCpu.toFixed(2)} ms), call p50 ${x.call.p50.toFixed(2)} ms, ${x.cpuPerCall.toFixed(3)} ms CPU/call${r === 0 ? `, RSS at rest ${(x.mem.rss / 1048576).toFixed(0)} MB` : ''}`,
        )
      }
    }
    out[n] = Object.fromEntries(
      systems.map((k) => {
        const xs = runs[k]
        const m = (f) => median(xs.map(f).filter(Number.isFinite))
        return [
          k,
          {
            readyMs: m((x) => x.readyMs),
            startCpu: m((x) => x.startCpu),
            startTreeCpu: m((x) => x.startTreeCpu),
            grossStartCpu: m((x) => x.grossStartCpu),
            polls: m((x) => x.polls),
            pollCpu: m((x) => x.pollCpu),
            callP50: m((x) => x.call.p50),
            callP95: m((x) => x.call.p95),
            cpuPerCall: m((x) => x.cpuPerCall),
            rss: m((x) => x.mem.rss),
            heapUsed: m((x) => x.mem.heapUsed),
            errors: xs.reduce((s, x) => s + x.errors, 0),
          },
        ]
      }),
    )
  }
  return { sizes, rounds, calls, warm, systems, bySize: out }
}
