// Helpers of the end-to-end run: a step runner that counts, polling, and a real `toolgate serve`.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..')
export const KEY = 'e2e-key-0123456789abcdefghijklmn' // 32 chars

// a closed stdout (e.g. `| head`) must not kill the run before it cleans up
process.stdout.on('error', () => undefined)

const children = new Set()
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && !c.signalCode) c.kill('SIGKILL')
})

export const results = []
export async function step(name, fn) {
  const t0 = Date.now()
  try {
    await fn()
    results.push({ name, ok: true })
    console.log(`ok - ${name} (${Date.now() - t0} ms)`)
  } catch (err) {
    results.push({ name, ok: false })
    console.log(
      `not ok - ${name}\n    ${String(err?.stack ?? err)
        .split('\n')
        .slice(0, 6)
        .join('\n    ')}`,
    )
  }
}
export function finish(code) {
  const passed = results.filter((r) => r.ok).length
  const failed = results.length - passed
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(code ?? (failed ? 1 : 0))
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
export async function until(what, fn, timeout = 15_000) {
  const end = Date.now() + timeout
  let last
  for (;;) {
    try {
      const v = await fn()
      if (v) return v
    } catch (err) {
      last = err
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`)
    await sleep(100)
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** Starts `toolgate serve` on a free port; resolves when the control API answers. */
export async function startServe(dir, config) {
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const log = fs.openSync(path.join(dir, 'serve.log'), 'a')
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin/toolgate.js'), 'serve', '--config', configFile, '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`],
    {
      env: { ...process.env, TOOLGATE_API_KEY: KEY },
      stdio: ['ignore', log, log],
    },
  )
  children.add(child)
  let exited = null
  child.on('exit', (code) => {
    exited = code
    children.delete(child)
  })
  const api = makeApi(base)
  await until(
    'toolgate serve to answer',
    async () => {
      if (exited !== null) throw new Error(`toolgate serve exited with ${exited}; see ${path.join(dir, 'serve.log')}`)
      return (await api.get('/api/v1/status')).version
    },
    20_000,
  )
  return { base, api, child, dataDir, configFile, stop: () => stopChild(child) }
}

export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode) return Promise.resolve()
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(t)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** retrieve_tools over a real MCP session on /mcp (what an agent sees), as its raw JSON text. */
export async function makeAgent(base) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }))
  return {
    retrieve: async (query, includeDisabled) => {
      const r = await client.callTool({ name: 'retrieve_tools', arguments: { query, limit: 15, include_disabled: includeDisabled } })
      return r.content[0].text
    },
    /** any Toolgate tool; the whole result (isError, content) */
    call: (name, args) => client.callTool({ name, arguments: args }),
    /** call_tool_<variant> over MCP: what an agent does */
    callTool: (name, args = {}, variant = 'read') => client.callTool({ name: `call_tool_${variant}`, arguments: { name, args } }),
    /** one MCP tool call: the text of its first content block */
    callText: async (name, args) => {
      const r = await client.callTool({ name, arguments: args })
      return { isError: r.isError === true, text: r.content[0]?.text ?? '' }
    },
    close: () => client.close(),
  }
}

export function makeApi(base) {
  const req = async (method, p, asText = false) => {
    const res = await fetch(base + p, { method, headers: { Authorization: `Bearer ${KEY}` } })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`)
    return asText ? text : JSON.parse(text)
  }
  return {
    get: (p) => req('GET', p),
    post: (p) => req('POST', p),
    text: (p) => req('GET', p, true),
    server: async (name) => (await req('GET', '/api/v1/servers')).servers.find((s) => s.name === name),
    tool: async (server, id) => (await req('GET', `/api/v1/servers/${server}/tools`)).tools.find((t) => t.name === id),
    search: (q, includeDisabled) => req('GET', `/api/v1/search?q=${encodeURIComponent(q)}&limit=15&include_disabled=${includeDisabled}`, true),
  }
}
