// Bench section "sandbox": what running an upstream in the sandbox costs, against the direct
// (unsandboxed) path in the same run: start time (spawn → initialize → tools/list) with network
// (its own network namespace: pasta around bwrap) and without (bwrap alone), and the p50 of a
// tool call, all interleaved so load drift hits every side equally.
import path from 'node:path'
import { requireRoot, ROOT, FIXTURE, tmpDir, now, stats, median, track } from './util.mjs'
import { StdioMcpClient } from './procs.mjs'
import { syntheticCatalog } from './synthetic.mjs'
import fs from 'node:fs'

function fixtureTools(dir) {
  const spec = syntheticCatalog(20, { servers: 1, seed: 11 })
  const server = spec.servers[0]
  const file = path.join(dir, 'tools.json')
  fs.writeFileSync(file, JSON.stringify(server.tools))
  const tool = server.tools.find((t) => t.annotations?.readOnlyHint === true)
  return { file, name: server.name, tool }
}

/** The command line Toolgate would run: the product's own launchSpec (bwrap around the fixture). */
function launches(core, dir, tools) {
  const config = {
    name: tools.name,
    command: process.execPath,
    args: [FIXTURE, '--tools', tools.file, '--name', tools.name],
    protocol: 'auto',
    enabled: true,
    trust: 'manual',
  }
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dir }
  const ctx = { dataDir: path.join(dir, 'data'), configPath: path.join(dir, 'data', 'mcp_config.json') }
  fs.mkdirSync(ctx.dataDir, { recursive: true })
  const boxed = (entry) => () => {
    const s = core.launchSpec(entry, env, { ctx, mode: 'run' })
    return { command: s.command, args: s.args, env: s.env, cleanup: s.cleanup }
  }
  return {
    direct: () => ({ command: config.command, args: config.args, env }),
    // the default: network on, in its own network namespace (pasta around bwrap on Linux)
    sandboxed: boxed(config),
    // no network: bwrap alone
    offline: boxed({ ...config, sandbox: { network: false } }),
    // an allowlist: pasta with the egress proxy's port only
    allow: boxed({ ...config, sandbox: { network: ['registry.npmjs.org'] } }),
  }
}

async function startOnce(spec) {
  const t0 = now()
  const { command, args, env, cleanup } = spec()
  const c = new StdioMcpClient(command, args, { env, stderr: 'ignore' })
  track(c.child, 'sandbox bench upstream')
  await c.initialize()
  await c.listTools()
  const ms = now() - t0
  const close = c.close.bind(c)
  c.close = async () => {
    await close()
    cleanup?.()
  }
  return { c, ms }
}

export async function sandboxOverhead({ starts = 20, calls = 300, warm = 50 } = {}) {
  const core = requireRoot(path.join(ROOT, 'out/main/core.js'))
  const support = core.sandboxSupport()
  if (!support.available) return { available: false, reason: support.reason }
  await core.startEgressProxy()
  const dir = tmpDir('toolgate-bench-sandbox-')
  const tools = fixtureTools(dir)
  const l = launches(core, dir, tools)
  // start time, interleaved (the order rotates so load drift hits every path alike)
  const d = [],
    s = [],
    o = [],
    a = [],
    diff = [],
    odiff = [],
    adiff = []
  const orders = [
    ['d', 's', 'o', 'a'],
    ['s', 'o', 'a', 'd'],
    ['o', 'a', 'd', 's'],
    ['a', 'd', 's', 'o'],
  ]
  const specOf = { d: l.direct, s: l.sandboxed, o: l.offline, a: l.allow }
  for (let i = 0; i < starts + 2; i++) {
    const t = {}
    for (const k of orders[i % orders.length]) {
      const { c, ms } = await startOnce(specOf[k])
      t[k] = ms
      await c.close()
    }
    if (i < 2) continue // warm-up (page cache, first bwrap run)
    d.push(t.d)
    s.push(t.s)
    o.push(t.o)
    a.push(t.a)
    diff.push(t.s - t.d)
    odiff.push(t.o - t.d)
    adiff.push(t.a - t.d)
  }
  // launchSpec alone (plan + argv, in process)
  const plans = []
  for (let i = 0; i < 200; i++) {
    const t0 = now()
    l.sandboxed().cleanup?.()
    plans.push(now() - t0)
  }
  // call overhead: one direct and one sandboxed fixture, calls interleaved
  const direct = (await startOnce(l.direct)).c
  const boxed = (await startOnce(l.sandboxed)).c
  const args = { [Object.keys(tools.tool.inputSchema.properties ?? { q: 1 })[0]]: 'bench-value' }
  const cd = [],
    cs = [],
    cdiff = []
  try {
    for (let i = 0; i < warm; i++) {
      await direct.callTool(tools.tool.name, args)
      await boxed.callTool(tools.tool.name, args)
    }
    for (let i = 0; i < calls; i++) {
      const order = i % 2 ? ['d', 's'] : ['s', 'd']
      const t = {}
      for (const k of order) {
        const t0 = now()
        await (k === 'd' ? direct : boxed).callTool(tools.tool.name, args)
        t[k] = now() - t0
      }
      cd.push(t.d)
      cs.push(t.s)
      cdiff.push(t.s - t.d)
    }
  } finally {
    await direct.close()
    await boxed.close()
  }
  return {
    available: true,
    mechanism: support.mechanism,
    starts,
    calls,
    start: {
      direct: stats(d),
      sandboxed: stats(s),
      offline: stats(o),
      allow: stats(a),
      pairedDiffMedian: median(diff),
      offlinePairedDiffMedian: median(odiff),
      allowPairedDiffMedian: median(adiff),
    },
    network: core.networkSupport ? core.networkSupport(support.binary) : null,
    plan: stats(plans),
    call: { direct: stats(cd), sandboxed: stats(cs), pairedDiffMedian: median(cdiff) },
  }
}
