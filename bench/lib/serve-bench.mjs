// A `toolgate serve` owner with N fixture upstreams (shared by the bridge and soak sections),
// and section 6: retrieve_tools through the stdio bridge vs directly over HTTP /mcp.
import path from 'node:path'
import { syntheticCatalog, queries } from './synthetic.mjs'
import { tmpDir, now, stats, median, freePort } from './util.mjs'
import {
  jsonOf,
  textOf,
  writeFixtureConfig,
  startStdio,
  startServe,
  waitReady,
  stopToolgate,
  httpClient,
  rawHttpClient,
  instanceOf,
  childrenOf,
  BENCH_KEY,
} from './procs.mjs'

const log = (...a) => process.stderr.write(`  [serve] ${a.join(' ')}\n`)

/** Starts `toolgate serve` over `size` synthetic tools on 50 fixture upstreams and waits until all are callable. */
export async function startServeFixture(size = 5000) {
  const spec = syntheticCatalog(size, { servers: 50, seed: 42 })
  const tools = spec.servers.reduce((n, s) => n + s.tools.length, 0)
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec)
  const dataDir = path.join(dir, 'data')
  const memFile = path.join(dir, 'mem.json')
  const port = await freePort()
  const t0 = now()
  const child = startServe({ config, dataDir, port, logFile: path.join(dir, 'serve.log'), memFile })
  const exited = new Promise((_, reject) =>
    child.once('exit', (code) => reject(new Error(`toolgate serve exited early (code ${code}); see ${path.join(dir, 'serve.log')}`))),
  )
  exited.catch(() => {})
  await Promise.race([waitReady(dataDir, spec.servers.length, tools), exited])
  const readyMs = now() - t0
  log(`serve ready with ${tools} tools on ${spec.servers.length} upstreams in ${readyMs.toFixed(0)} ms (port ${port})`)
  const url = `http://127.0.0.1:${port}`
  // read-only tools for call_tool_read load: readOnlyHint:true (a tool without hints needs call_tool_destructive, issue 24)
  const readTools = []
  for (const s of spec.servers)
    for (const t of s.tools)
      if (t.annotations?.readOnlyHint === true) readTools.push({ id: `${s.name}:${t.name}`, arg: Object.keys(t.inputSchema.properties)[0] })
  return {
    spec,
    tools,
    dir,
    config,
    dataDir,
    memFile,
    port,
    url,
    mcpUrl: `${url}/mcp`,
    child,
    readyMs,
    readTools,
    stop: () => stopToolgate(child),
  }
}

/** A bridged `toolgate stdio` on the serve's data dir; checks that it really bridges. */
export async function startBridge(fx) {
  const bridge = startStdio({ config: fx.config, dataDir: fx.dataDir })
  await bridge.initialize()
  const inst = instanceOf(fx.dataDir)
  const kids = childrenOf(bridge.child.pid)
  if (inst?.pid !== fx.child.pid || kids.length > 0)
    throw new Error(`toolgate stdio did not bridge to serve (owner pid ${inst?.pid}, serve pid ${fx.child.pid}, stdio children ${kids.length})`)
  return bridge
}

/** Section 6: the same retrieve_tools (and call_tool_read) via bridge, SDK HTTP client and a raw HTTP client. */
export async function bridgeOverhead(fx, { nq = 1000, warm = 100, calls = 300 } = {}) {
  const sdk = await httpClient(fx.mcpUrl, 'bench-bridge-direct')
  const raw = await rawHttpClient(fx.mcpUrl)
  const bridge = await startBridge(fx)
  try {
    const paths = {
      'stdio bridge → serve': (n, a) => bridge.callTool(n, a),
      'HTTP /mcp (MCP SDK client)': (n, a) => sdk.callTool(n, a),
      'HTTP /mcp (raw fetch client)': (n, a) => raw.callTool(n, a),
    }
    const keys = Object.keys(paths)
    // the control API returns byte-identical JSON without MCP framing: what the MCP layer costs
    const CONTROL = 'GET /api/v1/search (control API, same JSON, no MCP)'
    const search = async (n, a) => {
      const res = await fetch(`${fx.url}/api/v1/search?q=${encodeURIComponent(a.query)}&limit=${a.limit}`, {
        headers: { authorization: `Bearer ${BENCH_KEY}` },
      })
      const text = await res.text()
      return { content: [{ type: 'text', text }], isError: !res.ok }
    }
    const retrieveKeys = [...keys, CONTROL]
    const qs = queries(nq + warm, { seed: 21, catalog: fx.spec })
    const lat = Object.fromEntries(retrieveKeys.map((k) => [k, []]))
    const callLat = Object.fromEntries(keys.map((k) => [k, []]))
    let errors = 0
    for (let i = 0; i < qs.length; i++) {
      const order = retrieveKeys.map((_, j) => retrieveKeys[(i + j) % retrieveKeys.length]) // rotate who goes first
      for (const k of order) {
        if (k === CONTROL) {
          const t = now()
          const r = await search('retrieve_tools', { query: qs[i], limit: 10 })
          if (i >= warm) lat[k].push(now() - t)
          if (r.isError) errors++
          continue
        }
        const t = now()
        const r = await paths[k]('retrieve_tools', { query: qs[i], limit: 10 })
        const dt = now() - t
        if (r.isError || !jsonOf(r)) errors++
        if (i >= warm) lat[k].push(dt)
      }
    }
    const tool = fx.readTools[0]
    for (let i = 0; i < calls + 30; i++) {
      const order = keys.map((_, j) => keys[(i + j) % keys.length])
      for (const k of order) {
        const t = now()
        const r = await paths[k]('call_tool_read', { name: tool.id, args: { [tool.arg]: 'x' } })
        const dt = now() - t
        if (r.isError) errors++
        if (i >= 30) callLat[k].push(dt)
      }
    }
    // the bytes agree across paths (same server, same answer)
    const same =
      textOf(await bridge.callTool('retrieve_tools', { query: 'list issues', limit: 5 })) ===
      textOf(await sdk.callTool('retrieve_tools', { query: 'list issues', limit: 5 }))
    return {
      tools: fx.tools,
      queries: nq,
      calls,
      errors,
      sameBytes: same,
      retrieve: Object.fromEntries(retrieveKeys.map((k) => [k, stats(lat[k])])),
      call: Object.fromEntries(keys.map((k) => [k, stats(callLat[k])])),
    }
  } finally {
    await stopToolgate(bridge.child, { viaStdin: bridge })
    await sdk.close()
    await raw.close()
  }
}
