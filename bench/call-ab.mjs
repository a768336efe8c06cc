#!/usr/bin/env node
// `node bench/call-ab.mjs --builds A,B`: call_tool_read over HTTP /mcp through two (or more) builds of
// Toolgate in ONE run. Each build's `toolgate serve` runs beside the others with one fixture
// upstream ("sandbox": false); one SDK client per build calls its tool, warm-up first, then blocks
// of calls alternate between the builds (the order flips every block), so load and drift on a
// shared machine hit all alike. Reported per build: p50/p95 and the serve process's CPU per call
// from /proc/<pid>/task/*/schedstat (every thread, nanoseconds: the compiler's and the GC's
// threads too; "main" is the JavaScript thread alone).
//
//   node bench/call-ab.mjs --builds /tmp/before,/tmp/after              DIR: a built checkout (DIR/bin/toolgate.js, DIR/out)
//   node bench/call-ab.mjs --builds '/tmp/a#always,/tmp/a#on_demand'     #lifecycle of the upstream (default: always; "none" leaves it out)
//   node bench/call-ab.mjs --builds '/tmp/a#always,/tmp/a#always#sandbox' #sandbox: the upstream in Toolgate's default sandbox (else "sandbox": false)
//   node bench/call-ab.mjs --builds '/tmp/a#always#plain#1,/tmp/a#always#plain#50'  #N: N upstreams configured (s0…); the calls go to the last
//   node bench/call-ab.mjs --builds '/tmp/a#always#plain#1#legacy,/tmp/a#always#plain#1#modern,mcp-hub'  #era of this build's client
//                                          (default: --era): both protocol eras, and mcp-hub beside them, in one run
//   --warm 300 --calls 3000 --block 250    warm-up calls per build, measured calls per build, calls per block
//   --events                               keep the control API's event stream open on each build (as the window does) and count servers.changed
//   --node-args "--cpu-prof --cpu-prof-dir /tmp/p"   node flags for every serve process
//   --era modern                           the client speaks 2026-07-28 (SDK v2 client, pinned; stateless requests) instead of
//                                          the 2025 session of the SDK v1 client
//   --builds 'DIR,mcp-hub'                 mcp-hub (bench/peers, pinned; `npm run bench -- --only peers` installs it) beside a
//                                          build: its own tools/call on its /mcp (SSE), as the peers section calls it;
//                                          'mcp-hub#N' configures N upstreams (the calls go to the last)
//   --strace DIR                           after the measured calls, 200 more calls per system with `strace -f -tt` attached
//                                          (read/write/writev/epoll_wait/…): DIR/<n>.strace, to see the syscalls between a
//                                          request's arrival and its answer (strace slows each syscall: timestamps, not p50)
//
// A single run on this 2-core machine moves by ±5 % between builds that are the same (A/A); run it
// several times with the order swapped (docs/benchmarks.md, "the call path, part 2").
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { tmpDir, waitFor, stopProcess, stopAll, requireRoot, removeTmpDirs, threadCpuMs } from './lib/util.mjs'
import { BENCH_KEY } from './lib/procs.mjs'
import { ensurePeers } from './lib/peers-bench.mjs'
import { fixtureUpstream, serveHub, serveBuild } from './lib/ab-start.mjs'

const { Client } = requireRoot('@modelcontextprotocol/sdk/client/index.js')
const { StreamableHTTPClientTransport } = requireRoot('@modelcontextprotocol/sdk/client/streamableHttp.js')

const argv = process.argv.slice(2)
const opt = (f, d) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : d)
if (!opt('--builds')) {
  console.error('--builds A,B: built checkouts to compare (each DIR/bin/toolgate.js), optionally DIR#lifecycle')
  process.exit(2)
}
const specs = opt('--builds').split(',')
const warm = Number(opt('--warm', 300))
const calls = Number(opt('--calls', 3000))
const block = Number(opt('--block', 250))
const nodeArgs = opt('--node-args', '').split(' ').filter(Boolean)
const countEvents = argv.includes('--events')
const era = opt('--era', 'legacy')
const straceDir = opt('--strace')
/** The SDK v2 client (2026-07-28), loaded when a build is called in that era. */
let v2 = null
const V2 = () => (v2 ??= requireRoot('@modelcontextprotocol/client'))

/** One system under test: how to call its tool, and what the run counts of it. */
function system(spec, { child, client, transport }, callName, callArgs) {
  return { spec, callName, callArgs, child, client, transport, lat: [], cpu: 0, main: 0, n: 0, events: 0, counting: false, stopEvents: () => {} }
}

/** mcp-hub with n fixture upstreams, an SDK v1 client on its /mcp (SSE) once it lists every tool. */
async function startHubSystem(spec) {
  if (era === 'modern') throw new Error('mcp-hub speaks the 2025 protocol only: leave out --era modern')
  const peers = ensurePeers()
  if (!peers.ok) throw new Error(`mcp-hub is not installed: ${peers.reason}`)
  const n = Math.max(1, Number(spec.split('#')[1] ?? 1) || 1)
  const dir = tmpDir('toolgate-call-ab-hub-')
  const mcpServers = Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, { command: process.execPath, args: fixtureUpstream(dir, `s${i}`) }]))
  const hub = await serveHub(dir, mcpServers, { nodeArgs, clientName: 'call-ab', label: spec, timeoutMs: 120000 })
  await waitFor(`${spec} to list ${n} tools`, async () => (await hub.client.listTools()).tools.length >= n, 120000, 50)
  return system(spec, hub, `s${n - 1}__read_0`, (id) => ({ id }))
}

async function start(spec) {
  if (spec.split('#')[0] === 'mcp-hub') return startHubSystem(spec)
  const [root, lifecycle = 'always', isolation = '', count = '1', specEra = era] = spec.split('#')
  if (specEra !== 'legacy' && specEra !== 'modern') throw new Error(`${spec}: the era is legacy or modern, not ${specEra}`)
  const modern = specEra === 'modern'
  const n = Math.max(1, Number(count) || 1)
  const dir = tmpDir('toolgate-call-ab-')
  const upstream = (name) => ({
    command: process.execPath,
    args: fixtureUpstream(dir, name),
    quarantined: false,
    ...(isolation === 'sandbox' ? {} : { sandbox: false }),
  })
  const servers = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`s${i}`, lifecycle === 'none' ? upstream(`s${i}`) : { ...upstream(`s${i}`), lifecycle }]),
  )
  const { child, inst } = await serveBuild(root, dir, servers, { nodeArgs, label: spec, timeoutMs: 120000 })
  const requestInit = { headers: { Authorization: `Bearer ${BENCH_KEY}` } }
  const client = modern
    ? new (V2().Client)({ name: 'call-ab', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    : new Client({ name: 'call-ab', version: '1.0.0' })
  const transport = modern
    ? new (V2().StreamableHTTPClientTransport)(new URL(`${inst.url}/mcp`), { requestInit })
    : new StreamableHTTPClientTransport(new URL(`${inst.url}/mcp`), { requestInit })
  await client.connect(transport)
  const target = `s${n - 1}:read_0`
  const s = system(spec, { child, client, transport }, 'call_tool_read', (id) => ({ name: target, args: { id } }))
  if (countEvents) {
    const ctl = new AbortController()
    s.stopEvents = () => ctl.abort()
    fetch(`${inst.url}/api/v1/events`, { headers: { authorization: `Bearer ${BENCH_KEY}` }, signal: ctl.signal })
      .then(async (r) => {
        const dec = new TextDecoder()
        for await (const chunk of r.body) if (s.counting) s.events += (dec.decode(chunk).match(/servers\.changed/g) ?? []).length
      })
      .catch(() => {})
  }
  return s
}

const sys = []
try {
  for (const spec of specs) sys.push(await start(spec))
  let errors = 0
  const one = async (s, id) => {
    const r = await s.client.callTool({ name: s.callName, arguments: s.callArgs(id) })
    if (r.isError || !JSON.stringify(r.content).includes(id)) errors++
  }
  for (let i = 0; i < warm; i++) for (const s of sys) await one(s, `w${i}`)
  for (const s of sys) s.counting = true
  const load0 = os.loadavg()[0]
  for (let b = 0; sys[0].n < calls; b++) {
    for (const s of b % 2 === 0 ? sys : [...sys].reverse()) {
      const c0 = threadCpuMs(s.child.pid)
      const m0 = threadCpuMs(s.child.pid, true)
      for (let i = 0; i < block; i++) {
        const t = performance.now()
        await one(s, `c${s.n + i}`)
        s.lat.push(performance.now() - t)
      }
      s.cpu += threadCpuMs(s.child.pid) - c0
      s.main += threadCpuMs(s.child.pid, true) - m0
      s.n += block
    }
  }
  const load1 = os.loadavg()[0]
  const pct = (a, q) => [...a].sort((x, y) => x - y)[Math.floor(q * (a.length - 1))]
  const [base] = sys
  for (const s of sys) {
    const ratio =
      s === base
        ? ''
        : `  ÷ first: p50 ${(pct(s.lat, 0.5) / pct(base.lat, 0.5)).toFixed(3)}, CPU ${(s.cpu / s.n / (base.cpu / base.n)).toFixed(3)}, main ${(s.main / base.main).toFixed(3)}`
    const ev = countEvents ? `, servers.changed ${s.events}` : ''
    console.log(
      `${s.spec}: p50 ${pct(s.lat, 0.5).toFixed(3)} ms, p95 ${pct(s.lat, 0.95).toFixed(3)} ms, CPU/call ${(s.cpu / s.n).toFixed(4)} ms (main ${(s.main / s.n).toFixed(4)})${ev}${ratio}`,
    )
  }
  console.log(
    `${calls} calls each after ${warm} to warm up, blocks of ${block}, protocol ${era === 'modern' ? '2026-07-28' : '2025 (session)'} unless a build names its own; load ${load0.toFixed(1)} → ${load1.toFixed(1)}; errors ${errors}`,
  )
  if (straceDir) {
    fs.mkdirSync(straceDir, { recursive: true })
    for (const [i, s] of sys.entries()) {
      const file = path.join(straceDir, `${i}.strace`)
      const tracer = spawn(
        'strace',
        ['-f', '-tt', '-e', 'trace=read,write,writev,readv,epoll_wait,epoll_pwait,recvfrom,sendto,sendmsg,recvmsg', '-o', file, '-p', String(s.child.pid)],
        {
          stdio: 'ignore',
        },
      )
      await new Promise((r) => setTimeout(r, 1000)) // strace attaches every thread
      for (let k = 0; k < 200; k++) await one(s, `t${k}`)
      tracer.kill('SIGINT')
      await new Promise((r) => tracer.once('exit', r))
      console.log(`${s.spec}: strace of 200 calls in ${file}`)
    }
  }
} finally {
  for (const s of sys) {
    s.stopEvents()
    await s.transport.terminateSession?.().catch(() => {})
    await s.client.close().catch(() => {})
    await stopProcess(s.child, 8000)
  }
  await stopAll() // a serve whose start failed half-way
  removeTmpDirs()
}
