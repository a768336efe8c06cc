#!/usr/bin/env node
// Load / soak (issue 8): 8 concurrent agents × 500 mixed requests (70 % retrieve_tools, 30 %
// call_tool_read on fast fixture tools) against one `toolgate serve` with 50 fixture upstreams,
// first over HTTP (one MCP SDK client and session per agent), then over stdio (one bridged
// `toolgate stdio` per agent, the real-world Claude Desktop / Cursor case). Reports throughput,
// latency percentiles, errors, and the serve process's settled RSS (full GC via the bench GC hook)
// before and after each round.
//
//   node bench/soak.mjs [--size 5000] [--agents 8] [--requests 500] [--rounds 1] [--transports http,stdio]
// Also run as part of `npm run bench -- --only soak`.
import { fileURLToPath } from 'node:url'
import { rng, queries } from './lib/synthetic.mjs'
import { now, stats, mb, ms, sleep, table, rssOf, cpuMsOf, stopAll, removeTmpDirs, machine } from './lib/util.mjs'
import { httpClient, settledMemory, stopToolgate } from './lib/procs.mjs'
import { startServeFixture, startBridge } from './lib/serve-bench.mjs'

const log = (...a) => process.stderr.write(`  [soak] ${a.join(' ')}\n`)

/** One agent's deterministic request plan: [{kind, name, args}] */
function plan(fx, agent, n) {
  const rand = rng(1000 + agent)
  const qs = queries(n, { seed: 500 + agent, catalog: fx.spec })
  const out = []
  for (let i = 0; i < n; i++) {
    if (rand() < 0.7) out.push({ kind: 'retrieve', name: 'retrieve_tools', args: { query: qs[i], limit: 10 } })
    else {
      const t = fx.readTools[Math.floor(rand() * fx.readTools.length)]
      out.push({ kind: 'call', name: 'call_tool_read', args: { name: t.id, args: { [t.arg]: `agent-${agent}-${i}` } } })
    }
  }
  return out
}

async function runAgents(clients, fx, requests) {
  const lat = { all: [], retrieve: [], call: [] }
  const errors = []
  let peakRss = 0
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(fx.child.pid) || 0)
  }, 200)
  const cpu0 = cpuMsOf(fx.child.pid)
  const bridgeCpu0 = clients.reduce((n, c) => n + (c.child ? cpuMsOf(c.child.pid) : 0), 0)
  const t0 = now()
  await Promise.all(
    clients.map(async (c, agent) => {
      for (const req of plan(fx, agent, requests)) {
        const t = now()
        try {
          const r = await c.callTool(req.name, req.args)
          if (r?.isError) errors.push(`${req.name}: ${r.content?.[0]?.text?.slice(0, 160)}`)
        } catch (e) {
          errors.push(`${req.name}: ${e.message.slice(0, 160)}`)
        }
        const dt = now() - t
        lat.all.push(dt)
        lat[req.kind].push(dt)
      }
    }),
  )
  const wallMs = now() - t0
  const serveCpuMs = cpuMsOf(fx.child.pid) - cpu0
  const bridgeCpuMs = clients.reduce((n, c) => n + (c.child ? cpuMsOf(c.child.pid) : 0), 0) - bridgeCpu0
  clearInterval(sampler)
  peakRss = Math.max(peakRss, rssOf(fx.child.pid) || 0)
  return {
    requests: lat.all.length,
    wallMs,
    rps: (lat.all.length / wallMs) * 1000,
    all: stats(lat.all),
    retrieve: stats(lat.retrieve),
    call: stats(lat.call),
    errors: errors.length,
    errorSamples: [...new Set(errors)].slice(0, 5),
    peakRss,
    serveCpuMs,
    bridgeCpuMs,
  }
}

export async function runSoak(fx, { agents = 8, requests = 500, rounds = 1, transports = ['http', 'stdio'] } = {}) {
  // warm-up: a few requests per path so JIT and caches are in steady state before "before"
  const warm = await httpClient(fx.mcpUrl, 'soak-warmup')
  for (const req of plan(fx, 99, 200)) await warm.callTool(req.name, req.args)
  await warm.close()
  const memory = [{ label: 'before (after warm-up, settled)', ...(await settledMemory(fx.child, fx.memFile, 2000)) }]
  const results = []
  for (let round = 1; round <= rounds; round++) {
    for (const transport of transports) {
      log(`round ${round}: ${agents} agents × ${requests} requests over ${transport}`)
      let clients = []
      try {
        clients =
          transport === 'http'
            ? await Promise.all(Array.from({ length: agents }, (_, i) => httpClient(fx.mcpUrl, `soak-agent-${i}`)))
            : await Promise.all(Array.from({ length: agents }, () => startBridge(fx)))
        const r = await runAgents(clients, fx, requests)
        results.push({ round, transport, agents, ...r })
      } finally {
        if (transport === 'http') await Promise.all(clients.map((c) => c.close()))
        else await Promise.all(clients.map((c) => stopToolgate(c.child, { viaStdin: c })))
      }
      memory.push({ label: `after ${transport} round ${round} (clients closed, settled)`, ...(await settledMemory(fx.child, fx.memFile, 2000)) })
    }
  }
  return { agents, requests, rounds, results, memory, tools: fx.tools }
}

export function printSoak(s) {
  const md = []
  md.push(
    table(
      `7. Soak: ${s.agents} concurrent agents × ${s.requests} requests (70 % retrieve_tools, 30 % call_tool_read), serve with ${s.tools} tools / 50 upstreams`,
      [
        'transport',
        'round',
        'requests',
        'wall s',
        'req/s',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'max ms',
        'retrieve p50/p99',
        'call p50/p99',
        'serve CPU ms/req',
        'bridges CPU ms/req',
        'errors',
        'target',
      ],
      s.results.map((r) => [
        r.transport,
        r.round,
        r.requests,
        (r.wallMs / 1000).toFixed(1),
        r.rps.toFixed(0),
        ms(r.all.p50),
        ms(r.all.p95),
        ms(r.all.p99),
        ms(r.all.max),
        `${ms(r.retrieve.p50)} / ${ms(r.retrieve.p99)}`,
        `${ms(r.call.p50)} / ${ms(r.call.p99)}`,
        ms(r.serveCpuMs / r.requests),
        r.transport === 'stdio' ? ms(r.bridgeCpuMs / r.requests) : '-',
        r.errors,
        `${r.errors === 0 ? 'ok' : 'MISS'} errors=0, ${r.all.p99 < 50 ? 'ok' : 'MISS'} p99<50ms`,
      ]),
    ),
  )
  for (const r of s.results) if (r.errorSamples.length) console.log(`  ${r.transport} errors, e.g.: ${r.errorSamples.join(' | ')}`)
  const base = s.memory[0]
  md.push(
    table(
      '7b. Serve process memory (full GC via the bench hook, 2 s idle first)',
      ['when', 'VmRSS MB', 'heapUsed MB', 'RSS growth MB', 'peak RSS during round MB', 'target'],
      s.memory.map((m, i) => {
        const r = i > 0 ? s.results[i - 1] : null
        const growth = (m.vmrss - base.vmrss) / 1048576
        return [
          m.label,
          mb(m.vmrss),
          mb(m.heapUsed),
          i ? growth.toFixed(1) : '-',
          r ? mb(r.peakRss) : '-',
          i ? `${growth < 20 ? 'ok' : 'MISS'} growth<20MB` : '',
        ]
      }),
    ),
  )
  return md.join('\n\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2)
  const opt = (f, d) => {
    const i = argv.indexOf(f)
    return i >= 0 ? argv[i + 1] : d
  }
  let fx
  const stopAndExit = async (code) => {
    await stopAll()
    removeTmpDirs()
    process.exit(code)
  }
  process.on('SIGINT', () => void stopAndExit(130))
  try {
    console.log(
      `Toolgate soak — ${machine()}; load average ${(await import('node:os'))
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    )
    fx = await startServeFixture(Number(opt('--size', 5000)))
    const s = await runSoak(fx, {
      agents: Number(opt('--agents', 8)),
      requests: Number(opt('--requests', 500)),
      rounds: Number(opt('--rounds', 1)),
      transports: opt('--transports', 'http,stdio').split(','),
    })
    printSoak(s)
  } catch (e) {
    console.error(e.stack ?? e)
    process.exitCode = 1
  } finally {
    if (fx) {
      const orphans = await fx.stop()
      if (orphans) console.log(`  WARNING: ${orphans} upstream process(es) outlived toolgate serve (killed by pid)`)
    }
    await stopAll()
    removeTmpDirs()
  }
}
