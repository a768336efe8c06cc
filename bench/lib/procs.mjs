// Starting and talking to real toolgate processes: configs of fixture upstreams, `toolgate stdio`
// and `toolgate serve`, readiness through the control API, settled memory readings, and the
// process tree (to kill exactly what was started and to spot orphans).
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { FIXTURE, TOOLGATE_BIN, BENCH, REFERENCE, track, waitFor, sleep, rssOf, stopProcess, requireRoot, benchCompileCache } from './util.mjs'

// The shared, dependency-free stdio client (independent of the code under test).
export const { StdioMcpClient, jsonOf, textOf } = await import(pathToFileURL(path.join(REFERENCE, 'bench/lib/mcp-stdio.mjs')).href)

export const BENCH_KEY = 'bench-key-0123456789abcdef0123456789'

/**
 * Writes mcp_config.json with one fixture upstream per server of `spec`: mode 'tools' writes a
 * tools file per server (`--tools FILE`); mode 'corpus' uses `--corpus FILE --server NAME`.
 */
export function writeFixtureConfig(dir, spec, { mode = 'tools', extra = {} } = {}) {
  const mcpServers = {}
  for (const s of spec.servers) {
    let args
    if (mode === 'corpus') args = [FIXTURE, '--corpus', spec.file, '--server', s.corpusServer]
    else {
      const file = path.join(dir, `tools-${s.name}.json`)
      fs.writeFileSync(file, JSON.stringify(s.tools))
      args = [FIXTURE, '--tools', file, '--name', s.name]
    }
    mcpServers[s.name] = { command: process.execPath, args, quarantined: false }
  }
  const file = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(file, JSON.stringify({ mcpServers, ...extra }, null, 2))
  return file
}

const envFor = (extra = {}) => ({ ...process.env, TOOLGATE_API_KEY: BENCH_KEY, TOOLGATE_COMPILE_CACHE_DIR: benchCompileCache(), ...extra })

/** `toolgate stdio` as a child speaking newline JSON-RPC (embedded, or bridged when a serve owns the data dir). */
export function startStdio({ config, dataDir, nodeArgs = [], env = {} }) {
  const client = new StdioMcpClient(process.execPath, [...nodeArgs, TOOLGATE_BIN, 'stdio', '--config', config, '--data-dir', dataDir], {
    stderr: 'ignore',
    env: envFor(env),
  })
  track(client.child, 'toolgate stdio')
  return client
}

/** `toolgate serve` with the GC hook preloaded (settled memory readings on demand). Extra node flags
 * (e.g. --cpu-prof --cpu-prof-dir DIR) from $TOOLGATE_BENCH_SERVE_NODE_ARGS. */
export function startServe({
  config,
  dataDir,
  port,
  logFile,
  memFile,
  nodeArgs = (process.env.TOOLGATE_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean),
}) {
  const out = fs.openSync(logFile, 'a')
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      '--expose-gc',
      '--require',
      path.join(BENCH, 'lib/gc-hook.cjs'),
      TOOLGATE_BIN,
      'serve',
      '--config',
      config,
      '--data-dir',
      dataDir,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', out, out], env: envFor({ TOOLGATE_BENCH_MEM_FILE: memFile }) },
  )
  fs.closeSync(out)
  track(child, 'toolgate serve')
  return child
}

export async function control(url, route, { key = BENCH_KEY, method = 'GET' } = {}) {
  const res = await fetch(url + route, { method, headers: { authorization: `Bearer ${key}` } })
  const body = await res.json().catch(() => null)
  if (!res.ok) throw new Error(`${method} ${route}: HTTP ${res.status} ${JSON.stringify(body)}`)
  return body
}

export function instanceOf(dataDir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'instance.json'), 'utf8'))
  } catch {
    return null
  }
}

/** Waits until the owner of `dataDir` reports every server connected and `tools` callable tools. */
export async function waitReady(dataDir, servers, tools, timeoutMs = 180000) {
  const inst = await waitFor('instance.json', () => (instanceOf(dataDir)?.url ? instanceOf(dataDir) : null), timeoutMs)
  let seen = null
  await waitFor(
    `${servers} upstreams connected and ${tools} tools callable`,
    async () => {
      const st = await control(inst.url, '/api/v1/status')
      seen = { servers: st.servers, tools: st.tools }
      return st.servers.connected === servers && st.tools.callable === tools
    },
    timeoutMs,
    100,
  ).catch((e) => {
    throw new Error(`${e.message}; last status ${JSON.stringify(seen)}`)
  })
  return inst
}

/** Direct child pids of `pid` (from /proc). */
export function childrenOf(pid) {
  const out = []
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) out.push(Number(d))
    } catch {}
  }
  return out
}
export const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Stops a toolgate process we started (SIGTERM, then SIGKILL) and checks that the upstreams it
 * started went with it. Returns the number of orphans found (each then killed by its pid).
 */
export async function stopToolgate(child, { viaStdin = null } = {}) {
  if (!child) return 0
  const kids = child.exitCode === null ? childrenOf(child.pid) : []
  if (viaStdin) {
    await Promise.race([viaStdin.close(), sleep(10000)])
  }
  await stopProcess(child, 8000)
  await sleep(300)
  const orphans = kids.filter(alive)
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
  return orphans.length
}

/**
 * How long a process must be quiet before its memory counts as "at rest": V8 keeps the young
 * generation it grew during a burst of work (up to 2 × 16 MB of semi-spaces, all of it in RSS)
 * until its memory reducer runs, about 8–10 s after the allocation rate dropped; forced GCs do not
 * shrink it. Measured 1.5 s after a burst, a Toolgate that started 50 servers held a 32 MB young
 * generation (RSS 117 MB, PSS 80 MB); after 10 s quiet 2 MB (RSS 85 MB, PSS 47 MB).
 */
export const QUIET_MS = 12000

/** Settled memory of a serve started with the GC hook: {rss (VmRSS), heapUsed, …}. */
export async function settledMemory(child, memFile, idleMs = 1500) {
  await sleep(idleMs)
  try {
    fs.rmSync(memFile, { force: true })
  } catch {}
  child.kill('SIGUSR2')
  // two full GCs of a process on a machine at load 30 can take more than 10 s to be scheduled
  const m = await waitFor('GC hook memory reading', () => (fs.existsSync(memFile) ? JSON.parse(fs.readFileSync(memFile, 'utf8')) : null), 60000, 50)
  await sleep(200)
  return { ...m, vmrss: rssOf(child.pid) }
}

/** An MCP SDK client over Streamable HTTP to `url` (/mcp) with the bench key. */
export async function httpClient(mcpUrl, name = 'bench-http') {
  const { Client } = requireRoot('@modelcontextprotocol/sdk/client/index.js')
  const { StreamableHTTPClientTransport } = requireRoot('@modelcontextprotocol/sdk/client/streamableHttp.js')
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${BENCH_KEY}` } } })
  await client.connect(transport)
  return {
    client,
    transport,
    callTool: (n, a) => client.callTool({ name: n, arguments: a }),
    close: async () => {
      await transport.terminateSession().catch(() => {})
      await client.close().catch(() => {})
    },
  }
}

/**
 * A dependency-free JSON-RPC-over-HTTP MCP client (one session, one POST per request, JSON or
 * SSE response), to tell client-library cost from server cost.
 */
export async function rawHttpClient(mcpUrl) {
  let session = null
  let id = 1
  const post = async (body) => {
    const headers = {
      authorization: `Bearer ${BENCH_KEY}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    }
    if (session) headers['mcp-session-id'] = session
    const res = await fetch(mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) })
    if (!session) session = res.headers.get('mcp-session-id')
    const text = await res.text()
    if (body.id === undefined) return null
    const ct = res.headers.get('content-type') ?? ''
    if (ct.includes('text/event-stream')) {
      for (const line of text.split('\n'))
        if (line.startsWith('data: ')) {
          const m = JSON.parse(line.slice(6))
          if (m.id === body.id) return m
        }
      throw new Error(`no response in SSE body: ${text.slice(0, 200)}`)
    }
    return JSON.parse(text)
  }
  const init = await post({
    jsonrpc: '2.0',
    id: id++,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-raw', version: '1' } },
  })
  if (init.error) throw new Error(init.error.message)
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return {
    async callTool(name, args) {
      const r = await post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } })
      if (r.error) throw Object.assign(new Error(r.error.message), { rpc: r.error })
      return r.result
    },
    async close() {
      if (session) await fetch(mcpUrl, { method: 'DELETE', headers: { authorization: `Bearer ${BENCH_KEY}`, 'mcp-session-id': session } }).catch(() => {})
    },
  }
}
