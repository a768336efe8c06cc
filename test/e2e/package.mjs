#!/usr/bin/env node
// Install it like users do: `npm pack` (its prepack builds), install the tarball into a temp
// prefix, and run the installed `toolgate` from a temp folder with the checkout off PATH:
// --version, search on a temp config, stdio answering a real MCP client, serve serving the web
// UI, and the connect snippet run exactly as a client would. Prints the packed and installed
// sizes, then `N passed, M failed`; exits non-zero on failure.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import assert from 'node:assert/strict'
import { finish, root, step, stopChild, until } from './e2e-lib.mjs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-pkg-')))
const children = new Set()

// the installed program sees no trace of the checkout: not on PATH, not NODE_PATH, not its cwd
const env = { ...process.env, TOOLGATE_DATA_DIR: path.join(tmp, 'home-data'), HOME: path.join(tmp, 'home') }
for (const k of Object.keys(env)) if (k.startsWith('npm_') || k === 'NODE_PATH' || k === 'INIT_CWD') delete env[k]
env.PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((p) => p && !path.resolve(p).startsWith(root))
  .join(path.delimiter)
fs.mkdirSync(env.HOME, { recursive: true })
const work = path.join(tmp, 'work')
fs.mkdirSync(work)

function du(dir) {
  let n = 0
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    n += e.isDirectory() ? du(p) : e.isFile() ? fs.statSync(p).size : 0
  }
  return n
}
const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`

/** A zero-dependency MCP server over stdio with two tools (copied into the temp folder). */
const SERVER = `
import readline from 'node:readline'
const tools = [
  { name: 'read_note', description: 'Read a note from the notebook', inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, annotations: { readOnlyHint: true } },
  { name: 'burn_notebook', description: 'Delete every note in the notebook', inputSchema: { type: 'object', properties: {} }, annotations: { destructiveHint: true, readOnlyHint: false } },
]
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n')
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line)
  if (m.id === undefined) return
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'notes', version: '1.0.0' } } })
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools } })
  else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'note ' + m.params.arguments.id }] } })
  else send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } })
})
`
fs.writeFileSync(path.join(tmp, 'notes-server.mjs'), SERVER)
const configPath = path.join(tmp, 'mcp_config.json')
fs.writeFileSync(
  configPath,
  JSON.stringify({
    mcpServers: { notes: { command: process.execPath, args: [path.join(tmp, 'notes-server.mjs')], quarantined: false, disabled_tools: ['burn_notebook'] } },
  }),
)

const prefix = path.join(tmp, 'prefix')
const bin = path.join(prefix, 'bin', process.platform === 'win32' ? 'toolgate.cmd' : 'toolgate')
const installed = path.join(prefix, 'lib', 'node_modules', 'toolgate')
const run = (args, dataDir) =>
  execFileSync(bin, [...args, '--config', configPath, '--data-dir', dataDir], { cwd: work, env, encoding: 'utf8', timeout: 60_000 })

function spawnTracked(cmd, args, opts) {
  const child = spawn(cmd, args, opts)
  child.on('error', () => undefined) // reported by the step that waits for it
  children.add(child)
  child.on('exit', () => children.delete(child))
  return child
}

async function mcpClient(command, args) {
  const transport = new StdioClientTransport({ command, args, cwd: work, env, stderr: 'pipe' })
  const client = new Client({ name: 'package-test', version: '1.0.0' })
  await client.connect(transport)
  return client
}

let tarball
try {
  await step('npm pack builds and packs the package (prepack), without tests or sources', () => {
    const out = execFileSync('npm', ['pack', '--pack-destination', tmp, '--json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    // prepack's build log comes first on stdout; the JSON report is the last thing printed
    const info = JSON.parse(out.slice(out.search(/^\[\s*\{/m)))[0]
    tarball = path.join(tmp, info.filename)
    const files = info.files.map((f) => f.path)
    assert.ok(files.includes('out/main/cli.js') && files.includes('out/renderer/index.html') && files.includes('bin/toolgate.js'), files.join(' '))
    assert.ok(!files.some((f) => /^(src|test|bench|docs|node_modules)\//.test(f) || f.endsWith('.map')), files.join(' '))
    console.log(`# packed size: ${mb(fs.statSync(tarball).size)} (${files.length} files, unpacked ${mb(info.unpackedSize)})`)
    assert.ok(fs.statSync(tarball).size < 5 * 1024 * 1024, 'packed under 5 MB')
  })

  await step('npm i -g of the tarball into a temp prefix: runtime dependencies only', () => {
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    })
    assert.ok(fs.existsSync(bin), 'the toolgate bin is linked')
    const deps = fs.readdirSync(path.join(installed, 'node_modules'))
    for (const dev of ['electron', 'vite', 'vitest', 'typescript', 'react', 'eslint', 'electron-vite', '.bin/vitest'])
      assert.ok(!deps.includes(dev), `no ${dev} installed`)
    console.log(`# installed size: ${mb(du(installed))} (toolgate and its ${deps.filter((d) => !d.startsWith('.')).length} top-level dependencies)`)
  })

  await step('toolgate --version prints the package version', () => {
    assert.equal(execFileSync(bin, ['--version'], { cwd: work, env, encoding: 'utf8' }).trim(), pkg.version)
  })

  await step('toolgate search on a temp config prints what retrieve_tools returns (and starts nothing while no Toolgate runs)', async () => {
    const dataDir = path.join(tmp, 'search-data')
    // nothing runs: no upstream is started, the catalog is not known yet
    assert.deepEqual(JSON.parse(run(['search', 'read a note', '--include-disabled'], dataDir)).tools, [])
    const owner = spawnTracked(bin, ['serve', '--config', configPath, '--data-dir', dataDir, '--listen', '127.0.0.1:0'], {
      cwd: work,
      env,
      stdio: ['ignore', 'ignore', 'ignore'],
    })
    await until('toolgate serve to own the data dir', () => fs.existsSync(path.join(dataDir, 'instance.json')), 30_000)
    const check = () => {
      const r = JSON.parse(run(['search', 'read a note', '--include-disabled'], dataDir))
      assert.deepEqual(
        r.tools.map((t) => t.name),
        ['notes:read_note'],
      )
      const locked = JSON.parse(run(['search', 'delete every note', '--include-disabled'], dataDir))
      assert.deepEqual(locked.disabled, [
        { name: 'notes:burn_notebook', server: 'notes', description: 'Delete every note in the notebook', status: 'disabled_by_config' },
      ])
    }
    check()
    await stopChild(owner)
    // stopped: the same answers from the last known catalog (<data-dir>/catalog.json)
    check()
  })

  await step('toolgate stdio answers initialize and retrieve_tools to the MCP SDK client', async () => {
    const client = await mcpClient(bin, ['stdio', '--config', configPath, '--data-dir', path.join(tmp, 'stdio-data')])
    try {
      assert.equal(client.getServerVersion()?.name, 'toolgate')
      assert.equal(client.getServerVersion()?.version, pkg.version)
      const r = await until(
        'notes listed',
        async () => {
          const res = await client.callTool({ name: 'retrieve_tools', arguments: { query: 'read a note' } })
          const body = JSON.parse(res.content[0].text)
          return body.total > 0 ? body : null
        },
        30_000,
      )
      assert.equal(r.tools[0].name, 'notes:read_note')
      const call = await client.callTool({ name: 'call_tool_read', arguments: { name: 'notes:read_note', args: { id: '7' } } })
      assert.equal(call.content[0].text, 'note 7')
    } finally {
      await client.close()
    }
  })

  await step('toolgate serve serves the web UI, its assets and the control API', async () => {
    const dataDir = path.join(tmp, 'serve-data')
    const child = spawnTracked(bin, ['serve', '--config', configPath, '--data-dir', dataDir, '--listen', '127.0.0.1:0'], {
      cwd: work,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    const url = await until('the web UI URL', async () => /web UI:\s+(http:\/\/[^/\s]+)\/#key=(\S+)/.exec(err), 30_000)
    const [, base, key] = url
    const page = await fetch(`${base}/`)
    assert.equal(page.status, 200)
    const html = await page.text()
    assert.match(html, /<title>Toolgate<\/title>/)
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)
    assert.ok(asset, 'the page loads its script')
    const js = await fetch(`${base}/${asset[1]}`)
    assert.equal(js.status, 200)
    assert.match(js.headers.get('content-type') ?? '', /javascript/)
    const status = await (await fetch(`${base}/api/v1/status`, { headers: { Authorization: `Bearer ${key}` } })).json()
    assert.equal(status.version, pkg.version)
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
  })

  await step('toolgate connect writes a command that works when pasted into a client', async () => {
    const dataDir = path.join(tmp, 'connect-data')
    const snippet = JSON.parse(execFileSync(bin, ['connect', 'claude-desktop', '--data-dir', dataDir], { cwd: work, env, encoding: 'utf8' }))
    const entry = snippet.mcpServers.toolgate
    assert.equal(entry.command, process.execPath)
    assert.equal(entry.args[0], path.join(installed, 'bin', 'toolgate.js'), 'the installed package, not the checkout')
    fs.mkdirSync(dataDir, { recursive: true })
    fs.copyFileSync(configPath, path.join(dataDir, 'mcp_config.json'))
    const client = await mcpClient(entry.command, entry.args)
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name)
      assert.ok(tools.includes('retrieve_tools') && tools.includes('call_tool_read'), tools.join(' '))
    } finally {
      await client.close()
    }
  })

  await step('toolgate app without Electron says in one line how to get the desktop app', () => {
    let out = ''
    try {
      execFileSync(bin, ['app'], { cwd: work, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (e) {
      out = String(e.stderr)
      assert.equal(e.status, 1)
    }
    assert.equal(out.trim().split('\n').length, 1, out)
    assert.match(out, /needs Electron.*desktop app.*npm i -g electron.*toolgate serve/)
  })
} finally {
  for (const c of children) c.kill('SIGKILL')
  fs.rmSync(tmp, { recursive: true, force: true })
}
finish()
