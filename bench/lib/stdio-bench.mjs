// Section 4 (retrieve_tools over `toolgate stdio`, embedded core, N fixture upstreams) and
// section 5 (call_tool_read through toolgate vs the same fixture called directly).
import fs from 'node:fs'
import path from 'node:path'
import { syntheticCatalog, liveCorpus, queries } from './synthetic.mjs'
import { tmpDir, now, stats, median, rssOf, cpuMsOf, BENCH, FIXTURE, track } from './util.mjs'
import { StdioMcpClient, jsonOf, textOf, writeFixtureConfig, startStdio, waitReady, stopToolgate, settledMemory } from './procs.mjs'

const log = (...a) => process.stderr.write(`  [stdio] ${a.join(' ')}\n`)

export function specFor(size) {
  return size === 527 ? liveCorpus() : syntheticCatalog(size, { servers: 50, seed: 42 })
}

function vmHwm(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : NaN
  } catch {
    return NaN
  }
}

/** retrieve_tools over stdio at `size` tools (527 = the livemcptool corpus, one fixture per corpus server). */
export async function stdioRetrieval(size, { nq = 1000 } = {}) {
  const spec = specFor(size)
  const tools = spec.servers.reduce((n, s) => n + s.tools.length, 0)
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec, { mode: size === 527 ? 'corpus' : 'tools' })
  const dataDir = path.join(dir, 'data')
  const memFile = path.join(dir, 'mem.json')
  const t0 = now()
  const client = startStdio({
    config,
    dataDir,
    nodeArgs: ['--expose-gc', '--require', path.join(BENCH, 'lib/gc-hook.cjs')],
    env: { TOOLGATE_BENCH_MEM_FILE: memFile },
  })
  let orphans = 0
  try {
    await client.initialize(180000)
    const initMs = now() - t0
    log(`${size}: initialized in ${initMs.toFixed(0)} ms; waiting for ${spec.servers.length} upstreams and ${tools} tools`)
    await waitReady(dataDir, spec.servers.length, tools)
    const readyMs = now() - t0
    const qs = queries(nq + 100, { seed: 7, catalog: spec })
    let empty = 0
    for (const q of qs.slice(0, 100)) await client.callTool('retrieve_tools', { query: q, limit: 10 })
    const lat = []
    const cpu0 = cpuMsOf(client.child.pid)
    for (const q of qs.slice(100)) {
      const t = now()
      const r = await client.callTool('retrieve_tools', { query: q, limit: 10 })
      lat.push(now() - t)
      if (r.isError || !jsonOf(r)) throw new Error(`retrieve_tools failed: ${textOf(r)}`)
      if (jsonOf(r).total === 0) empty++
    }
    const cpuPerQuery = (cpuMsOf(client.child.pid) - cpu0) / (qs.length - 100)
    const incl = []
    for (const q of qs.slice(100, 400)) {
      const t = now()
      await client.callTool('retrieve_tools', { query: q, limit: 10, include_disabled: true })
      incl.push(now() - t)
    }
    const rss = rssOf(client.child.pid)
    const hwm = vmHwm(client.child.pid)
    const settled = await settledMemory(client.child, memFile)
    orphans = await stopToolgate(client.child, { viaStdin: client })
    return { size, tools, servers: spec.servers.length, initMs, readyMs, lat: stats(lat), incl: stats(incl), cpuPerQuery, empty, rss, hwm, settled, orphans }
  } finally {
    if (client.child.exitCode === null) orphans += await stopToolgate(client.child, { viaStdin: client })
  }
}

/** call_tool_read through `toolgate stdio` (one fixture upstream) vs the fixture called directly. */
export async function callOverhead({ calls = 300, warm = 50 } = {}) {
  const spec = syntheticCatalog(100, { servers: 1, seed: 5 })
  const server = spec.servers[0]
  const tool = server.tools.find((t) => t.annotations?.readOnlyHint === true)
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec)
  const dataDir = path.join(dir, 'data')
  const direct = new StdioMcpClient(process.execPath, [FIXTURE, '--tools', path.join(dir, `tools-${server.name}.json`), '--name', server.name], {
    stderr: 'ignore',
  })
  track(direct.child, 'fixture (direct)')
  const proxy = startStdio({ config, dataDir })
  try {
    await direct.initialize()
    await proxy.initialize()
    await waitReady(dataDir, 1, server.tools.length)
    const args = { [Object.keys(tool.inputSchema.properties)[0]]: 'bench-value' }
    const viaDirect = () => direct.callTool(tool.name, args)
    const viaProxy = () => proxy.callTool('call_tool_read', { name: `${server.name}:${tool.name}`, args })
    for (let i = 0; i < warm; i++) {
      await viaDirect()
      await viaProxy()
    }
    const d = [],
      p = [],
      diff = []
    let errors = 0
    for (let i = 0; i < calls; i++) {
      // alternate the order so drift and caching hit both sides equally
      const order =
        i % 2
          ? [
              ['d', viaDirect],
              ['p', viaProxy],
            ]
          : [
              ['p', viaProxy],
              ['d', viaDirect],
            ]
      const t = {}
      for (const [k, fn] of order) {
        const s = now()
        const r = await fn()
        t[k] = now() - s
        if (r.isError) errors++
      }
      d.push(t.d)
      p.push(t.p)
      diff.push(t.p - t.d)
    }
    // what the proxied result looks like (pass-through check)
    const sample = textOf(await viaProxy())
    return {
      tool: `${server.name}:${tool.name}`,
      calls,
      direct: stats(d),
      proxied: stats(p),
      pairedDiffMedian: median(diff),
      errors,
      sample: sample?.slice(0, 120),
    }
  } finally {
    await stopToolgate(proxy.child, { viaStdin: proxy })
    await direct.close().catch(() => {})
  }
}
