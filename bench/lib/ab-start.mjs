// The start sequence the A/B benches share (call-ab.mjs, start-ab.mjs): a build's `toolgate serve` or
// mcp-hub on fixture upstreams, in a temp dir, spawned, tracked (stopAll ends it) and waited for.
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { FIXTURE, benchCompileCache, freePort, now, requireRoot, track, waitFor } from './util.mjs'
import { BENCH_KEY, instanceOf } from './procs.mjs'
import { PEERS_DIR } from './peers-bench.mjs'

const { Client } = requireRoot('@modelcontextprotocol/sdk/client/index.js')
const { SSEClientTransport } = requireRoot('@modelcontextprotocol/sdk/client/sse.js')

/** A fixture upstream's tools file in `dir` with one read-only tool, `read_<i>` (argument `id`); returns the fixture's argv. */
export function fixtureUpstream(dir, name, i = 0) {
  const file = path.join(dir, `tools-read_${i}.json`)
  if (!fs.existsSync(file)) {
    const tool = {
      name: `read_${i}`,
      description: `Read record ${i}`,
      inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
      annotations: { readOnlyHint: true },
    }
    fs.writeFileSync(file, JSON.stringify([tool]))
  }
  return [FIXTURE, '--tools', file, '--name', name]
}

/**
 * `root`'s `toolgate serve` on `mcpServers` (written to dir/mcp_config.json), the bench API key and
 * the build's compile cache; resolves once its instance.json names its URL. `t0`: just before the spawn.
 */
export async function serveBuild(root, dir, mcpServers, { nodeArgs = [], label = 'toolgate serve', timeoutMs = 180000 } = {}) {
  if (!fs.existsSync(path.join(root, 'out/main/cli.js'))) throw new Error(`${root}: not built (out/main/cli.js is missing)`)
  const config = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(config, JSON.stringify({ mcpServers }))
  const dataDir = path.join(dir, 'data')
  const port = await freePort()
  const out = fs.openSync(path.join(dir, 'serve.log'), 'a')
  const t0 = now()
  const child = spawn(
    process.execPath,
    [...nodeArgs, path.join(root, 'bin/toolgate.js'), 'serve', '--config', config, '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`],
    {
      stdio: ['ignore', out, out],
      env: { ...process.env, TOOLGATE_API_KEY: BENCH_KEY, TOOLGATE_COMPILE_CACHE_DIR: benchCompileCache(root) },
    },
  )
  fs.closeSync(out)
  track(child, label)
  const inst = await waitFor(
    `${label} to listen`,
    () => (instanceOf(dataDir)?.pid === child.pid && instanceOf(dataDir)?.url ? instanceOf(dataDir) : null),
    timeoutMs,
    25,
  )
  return { t0, child, dataDir, inst }
}

/**
 * mcp-hub (bench/peers) on `mcpServers` with its own HOME, and an SDK v1 client on its /mcp (SSE)
 * once it accepts one. `t0`: just before the spawn.
 */
export async function serveHub(dir, mcpServers, { nodeArgs = [], clientName = 'bench-ab', label = 'mcp-hub', timeoutMs = 180000 } = {}) {
  const config = path.join(dir, 'mcp-hub.json')
  fs.writeFileSync(config, JSON.stringify({ mcpServers }))
  const home = path.join(dir, 'home')
  fs.mkdirSync(home, { recursive: true })
  const port = await freePort()
  const out = fs.openSync(path.join(dir, 'mcp-hub.log'), 'a')
  const t0 = now()
  const child = spawn(process.execPath, [...nodeArgs, path.join(PEERS_DIR, 'node_modules/mcp-hub/dist/cli.js'), '--port', String(port), '--config', config], {
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local/share'),
      XDG_STATE_HOME: path.join(home, '.local/state'),
    },
  })
  fs.closeSync(out)
  track(child, label)
  const url = new URL(`http://127.0.0.1:${port}/mcp`)
  const { client, transport } = await waitFor(
    `${label} to accept an MCP client`,
    async () => {
      const client = new Client({ name: clientName, version: '1.0.0' })
      const transport = new SSEClientTransport(url)
      try {
        await client.connect(transport)
        return { client, transport }
      } catch {
        await transport.close().catch(() => {})
        return null
      }
    },
    timeoutMs,
    25,
  )
  return { t0, child, client, transport }
}
