// Section 8 (issue 13): one owner, always reachable.
//   initialize   `toolgate stdio` (embedded owner) spawned and sent initialize at once: time to the
//                answer with 0 and with 70 fixture upstreams (the difference is what upstreams cost)
//   takeover     an embedded owner and two bridged stdio: SIGKILL the owner, time until a bridge
//                owns the data dir and until a call through a bridge succeeds again
//   parallel     `toolgate serve` with 50 fixture upstreams: time until every tool is callable, vs one
//                upstream alone, vs each upstream's own connect time (from the log)
//   heap         heap after GC of the owner (and of the bridge) over 3,000 requests on one session
import fs from 'node:fs'
import path from 'node:path'
import { tmpDir, now, median, freePort, sleep, waitFor } from './util.mjs'
import { writeFixtureConfig, startStdio, startServe, waitReady, stopToolgate, httpClient, instanceOf, settledMemory, alive, childrenOf } from './procs.mjs'
import { BENCH } from './util.mjs'

const log = (...a) => process.stderr.write(`  [owner] ${a.join(' ')}\n`)

/** n fixture servers with one read-only tool each. */
function spec(n, prefix = 's') {
  return {
    servers: Array.from({ length: n }, (_, i) => ({
      name: `${prefix}${i}`,
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

async function closeStdio(client) {
  await Promise.race([client.close().catch(() => {}), sleep(10000)])
  await stopToolgate(client.child)
}

export async function initializeAt(counts = [0, 70], rounds = 3) {
  const out = {}
  const times = Object.fromEntries(counts.map((n) => [n, []]))
  // interleaved (0, 70, 0, 70, …) so that load changes hit both alike
  for (let r = 0; r < rounds; r++) {
    for (const n of counts) {
      const dir = tmpDir()
      const config = writeFixtureConfig(dir, spec(n))
      const dataDir = path.join(dir, 'data')
      const client = startStdio({ config, dataDir })
      await client.initialize()
      const answered = Date.now()
      // from the moment the owner's listener is up (its log says so) to the initialize answer:
      // what the upstreams add, without Node's own boot (hundreds of ms, and noisy under load)
      const up = fs
        .readFileSync(path.join(dataDir, 'logs', 'toolgate.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"msg":"listening"'))
        .map((l) => JSON.parse(l).time)[0]
      times[n].push(answered - up)
      await closeStdio(client)
    }
  }
  for (const n of counts) {
    out[n] = { median: median(times[n]), all: times[n] }
    log(`listener up → initialize answered with ${n} upstreams: ${times[n].map((t) => t.toFixed(0)).join(', ')} ms`)
  }
  return out
}

export async function takeover(rounds = 3) {
  const rows = []
  for (let r = 0; r < rounds; r++) {
    const dir = tmpDir()
    const s = spec(5)
    const config = writeFixtureConfig(dir, s)
    const dataDir = path.join(dir, 'data')
    const a = startStdio({ config, dataDir })
    await a.initialize()
    await waitReady(dataDir, 5, 5)
    const b = startStdio({ config, dataDir })
    const c = startStdio({ config, dataDir })
    await b.initialize()
    await c.initialize()
    const kids = childrenOf(a.child.pid)
    const t0 = now()
    a.child.kill('SIGKILL')
    let ownerMs = NaN
    const owned = waitFor(
      'a bridge to own the data dir',
      () => {
        const pid = instanceOf(dataDir)?.pid
        if (pid === b.child.pid || pid === c.child.pid) return (ownerMs = now() - t0)
        return null
      },
      30000,
      5,
    )
    let callMs = NaN
    for (;;) {
      try {
        const res = await b.callTool('call_tool_read', { name: 's0:read_0', args: { id: 'x' } }, 10000)
        if (!res.isError) {
          callMs = now() - t0
          break
        }
      } catch {
        // the call in flight, or a refused one: try again
      }
      if (now() - t0 > 30000) break
    }
    await owned.catch(() => {})
    rows.push({ ownerMs, callMs })
    log(`round ${r + 1}: a bridge owns the data dir after ${ownerMs.toFixed(0)} ms; a call through a bridge succeeds after ${callMs.toFixed(0)} ms`)
    for (const k of kids) if (alive(k)) process.kill(k, 'SIGKILL')
    await closeStdio(b)
    await closeStdio(c)
  }
  return { ownerMs: median(rows.map((x) => x.ownerMs)), callMs: median(rows.map((x) => x.callMs)), rows }
}

/** One serve with n upstreams: spawn → every tool callable; the per-upstream connect times from its log. */
async function serveReady(n) {
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec(n))
  const dataDir = path.join(dir, 'data')
  const logFile = path.join(dir, 'serve.log')
  const t0 = now()
  const child = startServe({ config, dataDir, port: await freePort(), logFile, memFile: path.join(dir, 'mem.json') })
  await waitReady(dataDir, n, n, 120000)
  const readyMs = now() - t0
  const connect = fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"upstream connected"'))
    .map((l) => JSON.parse(l).ms)
  await stopToolgate(child)
  return { readyMs, connectMax: Math.max(...connect), connectMedian: median(connect) }
}

export async function parallelStart(n = 50, rounds = 3) {
  const all = []
  const single = []
  for (let r = 0; r < rounds; r++) {
    single.push(await serveReady(1))
    all.push(await serveReady(n))
    log(
      `round ${r + 1}: ${n} upstreams callable after ${all.at(-1).readyMs.toFixed(0)} ms (slowest upstream's own connect ${all.at(-1).connectMax} ms); 1 upstream after ${single.at(-1).readyMs.toFixed(0)} ms`,
    )
  }
  const m = (rows, k) => median(rows.map((x) => x[k]))
  return {
    n,
    allMs: m(all, 'readyMs'),
    singleMs: m(single, 'readyMs'),
    slowestConnectMs: m(all, 'connectMax'),
    medianConnectMs: m(all, 'connectMedian'),
    singleConnectMs: m(single, 'connectMax'),
  }
}

export async function heap(requests = 3000) {
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec(1))
  const dataDir = path.join(dir, 'data')
  const memFile = path.join(dir, 'mem.json')
  const port = await freePort()
  const child = startServe({ config, dataDir, port, logFile: path.join(dir, 'serve.log'), memFile })
  try {
    await waitReady(dataDir, 1, 1)
    const burst = async (call, n) => {
      for (let i = 0; i < n; i++) {
        if (i % 2) await call('call_tool_read', { name: 's0:read_0', args: { id: String(i) } })
        else await call('retrieve_tools', { query: 'read a ledger record' })
      }
    }
    const http = await httpClient(`http://127.0.0.1:${port}/mcp`)
    await burst(http.callTool, 300)
    const h0 = (await settledMemory(child, memFile)).heapUsed
    await burst(http.callTool, requests)
    const h1 = (await settledMemory(child, memFile)).heapUsed
    await http.close()
    log(`HTTP: owner heap ${(h0 / 1048576).toFixed(1)} → ${(h1 / 1048576).toFixed(1)} MB over ${requests} requests`)

    const bridgeMem = path.join(dir, 'mem-bridge.json')
    const bridge = startStdio({
      config,
      dataDir,
      nodeArgs: ['--expose-gc', '--require', path.join(BENCH, 'lib/gc-hook.cjs')],
      env: { TOOLGATE_BENCH_MEM_FILE: bridgeMem },
    })
    await bridge.initialize()
    const viaBridge = (n, a) => bridge.callTool(n, a)
    await burst(viaBridge, 300)
    const o0 = (await settledMemory(child, memFile)).heapUsed
    const b0 = (await settledMemory(bridge.child, bridgeMem)).heapUsed
    await burst(viaBridge, requests)
    const o1 = (await settledMemory(child, memFile)).heapUsed
    const b1 = (await settledMemory(bridge.child, bridgeMem)).heapUsed
    await closeStdio(bridge)
    log(
      `bridge: owner heap ${(o0 / 1048576).toFixed(1)} → ${(o1 / 1048576).toFixed(1)} MB, bridge heap ${(b0 / 1048576).toFixed(1)} → ${(b1 / 1048576).toFixed(1)} MB`,
    )
    return { requests, http: h1 - h0, bridgeOwner: o1 - o0, bridgeProcess: b1 - b0 }
  } finally {
    await stopToolgate(child)
  }
}
