#!/usr/bin/env node
// `node bench/mem-ab.mjs --baseline DIR`: memory at rest of this build, another build and mcp-hub in ONE run (issue 29).
// Per size and round, mcp-hub and each build (default sandbox and `"sandbox": false`) start one
// after another with N fixture servers and do what the peers section does before its memory
// reading (every tool callable; one call over HTTP; 100 readiness polls: Toolgate's status,
// mcp-hub's tools/list), stay quiet QUIET_MS, then report heapUsed after two full GCs (the GC
// hook) and VmRSS. The builds' order alternates by round; each build keeps its compile cache
// (as in the bench), written by a warm-up start first. Prints medians, each build ÷ mcp-hub, and
// the paired heap difference of the builds in each round.
//
//   node bench/mem-ab.mjs --baseline /tmp/before                  DIR: a built checkout of another commit (DIR/bin/toolgate.js, DIR/out)
//   node bench/mem-ab.mjs --baseline /tmp/before --sizes 1,10,50 --rounds 3 --sandbox both|on|off --json FILE
//   node bench/mem-ab.mjs --baseline /tmp/before --sizes 1 --rounds 1 --sandbox off --snapshots DIR
//     also writes a heap snapshot of each process after its reading (DIR/<system>-<n>-r<round>.heapsnapshot);
//     summarise one with `node bench/heap-breakdown.mjs FILE`
//
// mcp-hub comes from bench/peers (installed there, pinned, on first use: see bench/lib/peers-bench.mjs).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ROOT, tmpDir, freePort, waitFor, sleep, stopProcess, requireRoot, removeTmpDirs, benchCompileCache, median, requireBaseline } from './lib/util.mjs'
import { control, instanceOf, settledMemory, stopToolgate, httpClient, BENCH_KEY, QUIET_MS } from './lib/procs.mjs'
import { ensurePeers, spawnHub, spawnNode, writeTools } from './lib/peers-bench.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : d)
const baseline = requireBaseline(opt('--baseline'))
const sizes = opt('--sizes', '1,10,50').split(',').map(Number)
const rounds = Number(opt('--rounds', 3))
const snapshots = opt('--snapshots') ? path.resolve(opt('--snapshots')) : null
if (snapshots) fs.mkdirSync(snapshots, { recursive: true })
/** The env that makes the GC hook write a heap snapshot for this process (none without --snapshots or for a warm-up). */
const snapshotEnv = (name) => (snapshots && name ? { TOOLGATE_BENCH_HEAP_SNAPSHOT: path.join(snapshots, `${name}.heapsnapshot`) } : {})
const sandboxes = { both: [true, false], on: [true], off: [false] }[opt('--sandbox', 'both')]
const builds = [
  { key: 'before', root: path.resolve(baseline) },
  { key: 'after', root: ROOT },
]
const { Client } = requireRoot('@modelcontextprotocol/sdk/client/index.js')
const { SSEClientTransport } = requireRoot('@modelcontextprotocol/sdk/client/sse.js')
const log = (...a) => process.stderr.write(`  [mem-ab] ${a.join(' ')}\n`)

/** One build's `toolgate serve` through the sequence; its memory at rest (or null when `memory` is false). */
async function toolgate(build, n, sandbox, { memory = true, snapshot = null } = {}) {
  const dir = tmpDir('toolgate-mem-ab-')
  const mcpServers = {}
  for (const s of writeTools(dir, n))
    mcpServers[s.name] = { command: process.execPath, args: s.args, quarantined: false, lifecycle: 'always', ...(sandbox ? {} : { sandbox: false }) }
  const config = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(config, JSON.stringify({ mcpServers }, null, 2))
  const dataDir = path.join(dir, 'data')
  const memFile = path.join(dir, 'mem.json')
  const port = await freePort()
  const env = {
    TOOLGATE_API_KEY: BENCH_KEY,
    TOOLGATE_BENCH_MEM_FILE: memFile,
    TOOLGATE_COMPILE_CACHE_DIR: benchCompileCache(build.root),
    ...snapshotEnv(snapshot),
  }
  const args = [path.join(build.root, 'bin/toolgate.js'), 'serve', '--config', config, '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`]
  const child = spawnNode(args, { env, memFile, logFile: path.join(dir, 'serve.log'), label: `toolgate serve (${build.key})` })
  try {
    const inst = await waitFor(
      'instance.json',
      () => (instanceOf(dataDir)?.pid === child.pid && instanceOf(dataDir)?.url ? instanceOf(dataDir) : null),
      180000,
      25,
    )
    await waitFor(
      `${n} servers callable`,
      async () => {
        const st = await control(inst.url, '/api/v1/status')
        return st.servers.connected === n && st.tools.callable === n
      },
      180000,
      25,
    )
    const c = await httpClient(`${inst.url}/mcp`)
    const r = await c.callTool('call_tool_read', { name: `s${n - 1}:read_${n - 1}`, args: { id: 'x' } })
    if (r.isError) throw new Error(`call_tool_read failed: ${JSON.stringify(r)}`)
    for (let i = 0; i < 100; i++) await control(inst.url, '/api/v1/status')
    // the launcher writes the compile cache 15 s after the start: a warm-up start waits for it
    await sleep(memory ? QUIET_MS : 16000)
    const m = memory ? await settledMemory(child, memFile, 0) : null
    await c.close()
    return m
  } finally {
    await stopToolgate(child)
  }
}

/** mcp-hub through the same sequence (its own tools/list as the poll); its memory at rest. */
async function hub(n, snapshot = null) {
  const dir = tmpDir('toolgate-mem-ab-hub-')
  const { child, memFile, url: hubUrl } = await spawnHub(dir, writeTools(dir, n), snapshotEnv(snapshot))
  let c
  try {
    const url = new URL(hubUrl)
    c = await waitFor(
      'mcp-hub to accept a client',
      async () => {
        const client = new Client({ name: 'bench-mem-ab', version: '1.0.0' })
        const transport = new SSEClientTransport(url)
        try {
          await client.connect(transport)
          return client
        } catch {
          await transport.close().catch(() => {})
          return null
        }
      },
      180000,
      100,
    )
    await waitFor(`mcp-hub to list ${n} tools`, async () => (await c.listTools()).tools.length >= n, 180000, 50)
    await c.callTool({ name: `s${n - 1}__read_${n - 1}`, arguments: { id: 'x' } })
    for (let i = 0; i < 100; i++) await c.listTools()
    await sleep(QUIET_MS)
    return await settledMemory(child, memFile, 0)
  } finally {
    await c?.close().catch(() => {})
    await stopProcess(child, 8000)
  }
}

const have = ensurePeers()
if (!have.ok) {
  console.error(`mcp-hub is not installed: ${have.reason}`)
  process.exit(1)
}
const MB = (b) => b / 1048576
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')
const label = (sb) => (sb ? 'default sandbox' : '"sandbox": false')
try {
  for (const b of builds) for (const sb of sandboxes) await toolgate(b, 1, sb, { memory: false })
  const rows = []
  for (let round = 0; round < rounds; round++)
    for (const n of sizes) {
      const row = { n, round, load: load(), hub: await hub(n, `mcp-hub-${n}-r${round + 1}`) }
      for (const sb of sandboxes)
        for (const b of round % 2 ? [...builds].reverse() : builds)
          row[`${b.key}/${sb}`] = await toolgate(b, n, sb, { snapshot: `${b.key}-${sb ? 'sandbox' : 'nosandbox'}-${n}-r${round + 1}` })
      rows.push(row)
      log(
        `round ${round + 1}, ${n} servers, load ${row.load}: mcp-hub heap ${MB(row.hub.heapUsed).toFixed(2)} MB; ${sandboxes.map((sb) => builds.map((b) => `${b.key} (${label(sb)}) ${MB(row[`${b.key}/${sb}`].heapUsed).toFixed(2)}`).join(', ')).join('; ')}`,
      )
    }
  if (opt('--json')) fs.writeFileSync(opt('--json'), JSON.stringify({ baseline: path.resolve(baseline), rows }, null, 2))
  console.log(
    `\nMemory at rest (${QUIET_MS / 1000} s quiet, two full GCs), medians of ${rounds} round(s), MB; before = ${path.resolve(baseline)}, after = ${ROOT}\n`,
  )
  console.log('| servers | system | heap before → after | ÷ mcp-hub | RSS before → after | ÷ mcp-hub | heap after − before, each round |')
  console.log('|---|---|---|---|---|---|---|')
  for (const n of sizes) {
    const rs = rows.filter((r) => r.n === n)
    const m = (k, f) => median(rs.map((r) => MB(r[k][f])))
    const ratio = (k, f) => median(rs.map((r) => r[k][f] / r.hub[f]))
    for (const sb of sandboxes) {
      const [a, b] = builds.map((x) => `${x.key}/${sb}`)
      const diffs = rs.map((r) => (MB(r[b].heapUsed) - MB(r[a].heapUsed)).toFixed(2)).join(', ')
      console.log(
        `| ${n} | Toolgate (${label(sb)}) | ${m(a, 'heapUsed').toFixed(2)} → ${m(b, 'heapUsed').toFixed(2)} | ${ratio(a, 'heapUsed').toFixed(2)}× → ${ratio(b, 'heapUsed').toFixed(2)}× | ${m(a, 'vmrss').toFixed(1)} → ${m(b, 'vmrss').toFixed(1)} | ${ratio(a, 'vmrss').toFixed(2)}× → ${ratio(b, 'vmrss').toFixed(2)}× | ${diffs} |`,
      )
    }
    console.log(`| ${n} | mcp-hub | ${m('hub', 'heapUsed').toFixed(2)} | | ${m('hub', 'vmrss').toFixed(1)} | | |`)
  }
  console.log(`\nload (1/5/15 min) per row: ${rows.map((r) => r.load).join(' | ')}`)
} finally {
  removeTmpDirs()
}
