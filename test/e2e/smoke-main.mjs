#!/usr/bin/env node
// Smoke run of the BUILT Electron main bundle (out/main/index.js) in plain Node, with electron
// stubbed (test/e2e/electron-stub.cjs): the real core starts with a real upstream, and the tray,
// window, IPC and notifications are driven and checked. Needs `npm run build` first.
// Prints `N passed, M failed` last; exits non-zero on failure.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import assert from 'node:assert/strict'
import { pathToFileURL } from 'node:url'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..')
const FIXTURE = process.env.FIXTURE_SERVER ?? path.join(root, 'test/fixtures/bench/fixture-server.mjs')
const KEY = 'smoke-key-0123456789abcdefghijkl'

const results = []
async function step(name, fn) {
  try {
    await fn()
    results.push(true)
    console.log(`ok - ${name}`)
  } catch (err) {
    results.push(false)
    console.log(
      `not ok - ${name}\n    ${String(err?.stack ?? err)
        .split('\n')
        .slice(0, 5)
        .join('\n    ')}`,
    )
  }
}
function finish() {
  const passed = results.filter(Boolean).length
  console.log(`${passed} passed, ${results.length - passed} failed`)
  process.exit(results.length - passed ? 1 : 0)
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
async function until(what, fn, timeout = 45_000) {
  const end = Date.now() + timeout
  for (;;) {
    try {
      const v = await fn()
      if (v) return v
    } catch {
      // retry
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}
const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

if (!fs.existsSync(path.join(root, 'out/main/index.js'))) {
  console.log('not ok - out/main/index.js is missing: run `npm run build` first')
  results.push(false)
  finish()
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-smoke-'))
const dataDir = path.join(tmp, 'data')
const configFile = path.join(tmp, 'mcp_config.json')
const toolsFile = path.join(tmp, 'tools.json')
fs.writeFileSync(toolsFile, JSON.stringify([{ name: 'ping', description: 'Answer pong' }]))
const server = (name) => ({ command: process.execPath, args: [FIXTURE, '--tools', toolsFile, '--name', name] })
const config = { mcpServers: { trusted: { ...server('trusted'), quarantined: false }, newbie: server('newbie') } }
fs.writeFileSync(configFile, JSON.stringify(config))
const port = await freePort()
const base = `http://127.0.0.1:${port}`

const child = spawn(
  process.execPath,
  [
    '-r',
    path.join(root, 'test/e2e/electron-stub.cjs'),
    path.join(root, 'out/main/index.js'),
    '--data-dir',
    dataDir,
    '--config',
    configFile,
    '--listen',
    `127.0.0.1:${port}`,
  ],
  // run as an installed (packaged) app with a dev server URL in the environment: it must be ignored
  {
    cwd: root,
    env: { ...process.env, TOOLGATE_API_KEY: KEY, SMOKE_PACKAGED: '1', ELECTRON_RENDERER_URL: 'http://localhost:5173/' },
    stdio: ['pipe', 'pipe', 'pipe'],
  },
)
process.stdout.on('error', () => undefined)
process.on('exit', () => exitCode === null && child.kill('SIGKILL'))
let stderr = ''
child.stderr.on('data', (d) => (stderr += d))
const lines = []
const waiters = []
readline.createInterface({ input: child.stdout }).on('line', (line) => {
  const m = /^(SMOKE_[A-Z]+) (.*)$/.exec(line)
  if (!m) return
  const msg = { tag: m[1], data: JSON.parse(m[2]) }
  lines.push(msg)
  for (const w of [...waiters]) if (w.tag === msg.tag) waiters.splice(waiters.indexOf(w), 1) && w.resolve(msg.data)
})
let exitCode = null
const exited = new Promise((r) => child.on('exit', (code) => r((exitCode = code))))
const next = (tag, timeout = 20_000) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${tag} within ${timeout} ms; stderr:\n${stderr.slice(-2000)}`)), timeout)
    waiters.push({ tag, resolve: (d) => (clearTimeout(t), resolve(d)) })
  })
const send = (line, tag) => {
  const p = next(tag)
  child.stdin.write(`${line}\n`)
  return p
}
const http = async (p, method = 'GET') => {
  const res = await fetch(base + p, { method, headers: { Authorization: `Bearer ${KEY}` } })
  return res.json()
}

try {
  const ready = await next('SMOKE_READY', 30_000)

  await step('the built bundle starts: one instance lock, a secure window, a tray, CSP, every operation of the table as an IPC handler', () => {
    assert.deepEqual(ready.errorBoxes, [])
    assert.equal(ready.singleInstanceRequested, 1)
    assert.equal(ready.windows, 1)
    const prefs = ready.window.webPreferences
    assert.equal(prefs.contextIsolation, true)
    assert.equal(prefs.nodeIntegration, false)
    assert.equal(prefs.sandbox, true)
    assert.equal(prefs.preload, path.join(root, 'out/preload/index.js'))
    assert.ok(fs.existsSync(prefs.preload), 'the preload path points at the built preload')
    assert.equal(ready.window.loadedFile, path.join(root, 'out/renderer/index.html'))
    assert.equal(ready.window.loadedUrl, undefined, 'a packaged app ignores ELECTRON_RENDERER_URL')
    assert.ok(fs.existsSync(ready.window.loadedFile), 'the window loads the built renderer')
    assert.equal(ready.trays, 1)
    assert.equal(ready.cspHooks, 1)
    assert.deepEqual(
      ready.handlers,
      [
        ...[
          'activity',
          'addServer',
          'agentTokens',
          'agents',
          'allowConfirmation',
          'answerQuestion',
          'approveAll',
          'authStatus',
          'classifyTool',
          'confirmations',
          'deleteSecret',
          'denyConfirmation',
          'denyRequest',
          'editServer',
          'grantRequest',
          'info',
          'promptAction',
          'prompts',
          'questions',
          'removeServer',
          'requests',
          'resources',
          'restoreServer',
          'revokeAgentTokens',
          'search',
          'secrets',
          'server',
          'serverAction',
          'serverEntry',
          'servers',
          'setAskBeforeCall',
          'setAskInClient',
          'setSecret',
        ],
        'settings:getStartAtLogin',
        'settings:setStartAtLogin',
        ...['signIn', 'signOut', 'stats', 'status', 'templateAction', 'toolAction', 'tools'],
      ].map((o) => `toolgate:${o}`),
    )
  })

  await step('the tray shows the state and what waits, with the attention icon', () => {
    const labels = ready.tray.menu.map((i) => i.label)
    assert.match(labels[0], /of 2 servers connected/)
    assert.ok(labels.includes('1 waiting for approval…'), JSON.stringify(labels))
    assert.ok(labels.some((l) => l.startsWith('newbie — quarantined')))
    assert.ok(labels.includes('Open Toolgate') && labels.includes('Quit Toolgate'))
    assert.match(ready.tray.image.path, /tray-attention\.png$/)
    assert.equal(ready.tray.image.exists, true, 'the icon file exists in resources/')
    assert.equal(ready.tray.tooltip, 'Toolgate — 1 waiting for approval')
  })

  await step('IPC reaches the real core; a foreign sender is refused', async () => {
    const info = await send('ipc info', 'SMOKE_IPC')
    assert.equal(info.ok, true)
    assert.equal(info.value.config_path, configFile)
    const servers = await send('ipc servers', 'SMOKE_IPC')
    assert.deepEqual(servers.value.servers.map((s) => s.name).sort(), ['newbie', 'trusted'])
    // (after connecting, the core may list the baseline tool as pending for a moment; wait until it is callable)
    await until('trusted:ping callable', async () => (await http('/api/v1/servers/trusted/tools')).tools[0]?.status === 'callable')
    const search = await send('ipc search [{"query":"pong"}]', 'SMOKE_IPC')
    assert.equal(JSON.parse(search.value).total, 1)
    assert.equal(search.value, await (await fetch(`${base}/api/v1/search?q=pong`, { headers: { Authorization: `Bearer ${KEY}` } })).text())
    const bad = await send('ipc serverAction ["trusted","explode"]', 'SMOKE_IPC')
    assert.equal(bad.ok, false)
    const foreign = await send('ipc-untrusted servers', 'SMOKE_IPC')
    assert.deepEqual(foreign.ok, false)
    assert.equal(foreign.error.status, 403)
    const iframe = await send('ipc-iframe servers', 'SMOKE_IPC')
    assert.equal(iframe.ok, false, 'an iframe in our own window is not the main frame')
    assert.equal(iframe.error.status, 403)
  })

  await step('web permissions: only clipboard write, only for our page', async () => {
    const own = pathToFileURL(path.join(root, 'out/renderer/index.html')).href
    assert.equal((await send(`permission clipboard-sanitized-write ${own}`, 'SMOKE_PERMISSION')).granted, true)
    assert.equal((await send(`permission media ${own}`, 'SMOKE_PERMISSION')).granted, false)
    assert.equal((await send(`permission geolocation ${own}`, 'SMOKE_PERMISSION')).granted, false)
    assert.equal((await send('permission clipboard-sanitized-write https://evil.example/', 'SMOKE_PERMISSION')).granted, false)
  })

  await step('the control API is served too (the tray app owns the data dir)', async () => {
    const status = await http('/api/v1/status')
    assert.equal(status.servers.total, 2)
    const instance = JSON.parse(fs.readFileSync(path.join(dataDir, 'instance.json'), 'utf8'))
    assert.equal(instance.kind, 'app')
    assert.equal(instance.url, base)
  })

  await step('Disable / Enable from the tray acts on the core', async () => {
    await send('tray trusted — > Disable', 'SMOKE_CLICKED')
    await until('trusted disabled', async () => (await http('/api/v1/servers')).servers.find((s) => s.name === 'trusted').enabled === false)
    await until('tray menu shows Enable', async () => {
      const r = await send('report', 'SMOKE_REPORT')
      return r.tray.menu.find((i) => i.label.startsWith('trusted —'))?.submenu.includes('Enable')
    })
    await send('tray trusted — > Enable', 'SMOKE_CLICKED')
    await until('trusted enabled', async () => (await http('/api/v1/servers')).servers.find((s) => s.name === 'trusted').enabled === true)
    await until('trusted:ping callable again', async () => (await http('/api/v1/servers/trusted/tools')).tools[0]?.status === 'callable')
  })

  await step('a server that starts waiting raises a notification; events reach the window', async () => {
    config.mcpServers.another = server('another')
    fs.writeFileSync(configFile, JSON.stringify(config))
    const r = await until('a notification', async () => {
      const rep = await send('report', 'SMOKE_REPORT')
      return rep.notifications.length ? rep : null
    })
    assert.match(r.notifications[0].body, /Server "another" is new and waits for your review/)
    assert.ok(r.tray.menu.some((i) => i.label === '2 waiting for approval…'))
    assert.ok(r.window.sent.some((s) => s.channel === 'toolgate:event' && s.type === 'config.reloaded'))
  })

  await step('closing the window hides it; Quit stops the core and exits cleanly', async () => {
    await send('close', 'SMOKE_CLICKED')
    const r = await send('report', 'SMOKE_REPORT')
    assert.equal(r.window.destroyed, false)
    assert.equal(r.window.visible, false)
    const done = await send('quit', 'SMOKE_DONE')
    assert.ok(done.quitCalls >= 2, 'the first quit waits for the core to stop')
    assert.equal(await exited, 0)
    assert.equal(fs.existsSync(path.join(dataDir, 'instance.json')), false, 'the core released the data dir')
  })
} catch (err) {
  results.push(false)
  console.log(`not ok - smoke run\n    ${String(err?.stack ?? err)}`)
} finally {
  if (exitCode === null) child.kill('SIGKILL')
  fs.rmSync(tmp, { recursive: true, force: true })
}
finish()
