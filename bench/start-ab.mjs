#!/usr/bin/env node
// `node bench/start-ab.mjs --baseline DIR`: the start of `toolgate serve` (lifecycle "always", N
// fixture servers, default sandbox) of this build against another build and mcp-hub, interleaved in
// ONE run (the order rotates each round), so load and drift hit every system alike. Per start: wall
// time from spawn until every tool is callable, and CPU of the proxy (all its threads, schedstat)
// without what the readiness polls cost it (measured after the start, as section 11 does).
//
//   node bench/start-ab.mjs --baseline /tmp/base --servers 50 --rounds 4 [--no-sandbox] [--no-hub]
//   TOOLGATE_BENCH_SERVE_NODE_ARGS="--cpu-prof --cpu-prof-dir /tmp/p" applies to both toolgate builds
//
// DIR is a built checkout of another commit (DIR/bin/toolgate.js, DIR/out/main). mcp-hub comes from
// bench/peers (npm run bench -- --only peers installs it).
import fs from 'node:fs'
import path from 'node:path'
import { ROOT, tmpDir, now, median, waitFor, stopProcess, stopAll, removeTmpDirs, threadCpuMs } from './lib/util.mjs'
import { control, stopToolgate } from './lib/procs.mjs'
import { ensurePeers } from './lib/peers-bench.mjs'
import { fixtureUpstream, serveHub, serveBuild } from './lib/ab-start.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : d)
const baseline = opt('--baseline')
const n = Number(opt('--servers', 50))
const rounds = Number(opt('--rounds', 3))
const sandbox = !argv.includes('--no-sandbox')
const POLL_MS = 100
const POLL_COST_SAMPLES = 30

/** n fixture servers, each with its own tools file (one read-only tool, read_<i>). */
function writeTools(dir) {
  return Array.from({ length: n }, (_, i) => ({ name: `s${i}`, args: fixtureUpstream(dir, `s${i}`, i) }))
}

async function startToolgate(root, dir, servers) {
  const mcpServers = {}
  for (const s of servers)
    mcpServers[s.name] = { command: process.execPath, args: s.args, quarantined: false, lifecycle: 'always', ...(sandbox ? {} : { sandbox: false }) }
  const nodeArgs = (process.env.TOOLGATE_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const { t0, child, inst } = await serveBuild(root, dir, mcpServers, { nodeArgs })
  const poll = async () => {
    const st = await control(inst.url, '/api/v1/status')
    return st.servers.connected === servers.length && st.tools.callable === servers.length
  }
  let polls = 0
  await waitFor('every tool callable', () => (polls++, poll()), 180000, POLL_MS)
  return { t0, pid: child.pid, polls, poll, stop: () => stopToolgate(child) }
}

async function startHubSystem(dir, servers) {
  const mcpServers = {}
  for (const s of servers) mcpServers[s.name] = { command: process.execPath, args: s.args }
  const { t0, child, client } = await serveHub(dir, mcpServers, { clientName: 'start-ab' })
  let polls = 0
  await waitFor('every tool listed', async () => (polls++, (await client.listTools()).tools.length >= n), 180000, POLL_MS)
  return {
    t0,
    pid: child.pid,
    polls,
    poll: () => client.listTools(),
    stop: async () => {
      await client.close().catch(() => {})
      await stopProcess(child, 8000)
    },
  }
}

const systems = [
  ...(baseline ? [{ label: `baseline (${baseline})`, start: (d, s) => startToolgate(path.resolve(baseline), d, s) }] : []),
  { label: 'this build', start: (d, s) => startToolgate(ROOT, d, s) },
  ...(argv.includes('--no-hub') ? [] : [{ label: 'mcp-hub', start: startHubSystem, hub: true }]),
]
if (systems.some((s) => s.hub)) {
  const p = ensurePeers()
  if (!p.ok) throw new Error(p.reason)
}
// each build's compiled code cache (bin/toolgate.js writes it once a serve has run 15 s): warm, as a user's is
for (const sys of systems.filter((s) => !s.hub)) {
  const dir = tmpDir('toolgate-start-ab-')
  const s = await sys.start(dir, writeTools(dir).slice(0, 1)).catch(() => null)
  await new Promise((r) => setTimeout(r, 16500))
  await s?.stop()
}
const results = new Map(systems.map((s) => [s.label, []]))
process.stderr.write(
  `${n} servers, ${sandbox ? 'default sandbox' : '"sandbox": false'}, ${rounds} rounds, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`,
)
try {
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < systems.length; k++) {
      const sys = systems[(r + k) % systems.length]
      const dir = tmpDir('toolgate-start-ab-')
      const servers = writeTools(dir)
      const s = await sys.start(dir, servers)
      const wall = now() - s.t0
      const cpu = threadCpuMs(s.pid)
      const c0 = threadCpuMs(s.pid)
      for (let i = 0; i < POLL_COST_SAMPLES; i++) await s.poll()
      const perPoll = (threadCpuMs(s.pid) - c0) / POLL_COST_SAMPLES
      const own = cpu - s.polls * perPoll
      results.get(sys.label).push({ wall, own })
      process.stderr.write(
        `  round ${r + 1} ${sys.label}: ${wall.toFixed(0)} ms wall, ${own.toFixed(0)} ms CPU (${s.polls} polls × ${perPoll.toFixed(2)} taken out)\n`,
      )
      await s.stop()
    }
  }
} finally {
  await stopAll()
  removeTmpDirs()
}
const hub = systems.find((s) => s.hub)
const hubCpu = hub ? median(results.get(hub.label).map((x) => x.own)) : NaN
console.log(
  `\n${n} servers, ${sandbox ? 'default sandbox' : '"sandbox": false'}, ${rounds} rounds, load after ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
)
for (const s of systems) {
  const rs = results.get(s.label)
  const cpu = median(rs.map((x) => x.own))
  const ratio = hub && !s.hub ? `  ÷ mcp-hub ${(cpu / hubCpu).toFixed(2)}×` : ''
  console.log(
    `${s.label.padEnd(40)} CPU median ${cpu.toFixed(0)} ms [${rs.map((x) => x.own.toFixed(0)).join(', ')}]  wall median ${median(rs.map((x) => x.wall)).toFixed(0)} ms${ratio}`,
  )
}
