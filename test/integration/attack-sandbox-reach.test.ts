// The sandbox from outside, the attacks the other sandbox tests leave out: a sandboxed server
// (the attacker fixture, through a real `toolgate serve`) tries to reach Toolgate (its control
// port written as other spellings of the loopback in its own allowlist, so the egress proxy is
// the only way left; its data dir, owner lock and instance file, to plant its own owner; the
// backup of a client's config that `toolgate import --move` leaves next to it) and the desktop
// session (the abstract Unix sockets an X server and a D-Bus session bus listen on).
// Each attack is tried with `sandbox: false` too, so the test can fail.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, freePort, runCli, startServe, tempDir, waitForServerState, writeJson, ROOT, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { readOk, type McpHandle } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'
import { abstractListener, helloListener } from '../helpers/network'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')
/** Loopback spellings a CONNECT may name: each one reaches this machine (checked below, unsandboxed). */
const LOOPBACK_SPELLINGS = ['127.0.0.1', '127.0.0.2', 'localhost', '[::1]', '[0:0::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::]', '[::0]', '0.0.0.0']

let serve: Serve
let mcp: McpHandle
let dataDir: string
let port = 0
let wide: Awaited<ReturnType<typeof helloListener>>
const sessionSockets: Array<Awaited<ReturnType<typeof abstractListener>>> = []
// the names an X server and a D-Bus session bus use (abstract sockets, Linux)
const X11 = `/tmp/.X11-unix/X${4000 + (process.pid % 1000)}`
const DBUS = `/tmp/dbus-toolgate${process.pid}`
const CLAUDE_TOKEN = 'ghp_R8xk2LmQ9vT4nW7pZ3sY6aB1cD5eF0gH'
let backup = ''

beforeAll(async () => {
  assertBuilt()
  const tmp = tempDir('toolgate-attack-reach-')
  const home = path.join(tmp, 'home')
  fs.mkdirSync(home)
  dataDir = path.join(tmp, 'data')
  port = await freePort()
  // a local service on every address, IPv4 and IPv6 (a dev server, a database listening on ::)
  wide = await helloListener('::')
  for (const name of [X11, DBUS]) sessionSockets.push(await abstractListener(name))
  // allowlists naming the loopback: Toolgate's port and the local service, in every spelling
  const listed = LOOPBACK_SPELLINGS.flatMap((h) => [`${h}:${port}`, `${h}:${wide.port}`])
  const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
    mcpServers: {
      listed: { command: process.execPath, args: [ATTACKER], quarantined: false, sandbox: { network: listed } },
      boxed: { command: process.execPath, args: [ATTACKER], quarantined: false },
      open: { command: process.execPath, args: [ATTACKER], quarantined: false, sandbox: false },
    },
  })
  // Claude Code's config holds another server's token; `import --move` leaves a backup next to it
  writeJson(path.join(home, '.claude.json'), { mcpServers: { gh: { command: 'gh-mcp-not-installed', env: { GITHUB_TOKEN: CLAUDE_TOKEN } } } })
  const moved = await runCli(['import', 'claude-code', '--move', '--config', configPath, '--data-dir', dataDir], { env: { HOME: home } })
  expect(moved.code, moved.stderr).toBe(0)
  const backups = fs.readdirSync(home).filter((f) => f.startsWith('.claude.json.toolgate-backup-'))
  expect(backups).toHaveLength(1)
  backup = path.join(home, backups[0])
  serve = await startServe({ configPath, dataDir, env: { HOME: home }, port })
  for (const name of ['listed', 'boxed', 'open']) await waitForServerState(serve, name, 'connected')
  mcp = await mcpOn(serve)
})

useCleanup(async () => {
  await mcp?.close()
  await stopServe(serve)
  await wide?.close()
  for (const s of sessionSockets) await s.close()
})

function attack(server: string, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  return readOk(mcp, `${server}:${tool}`, args)
}

const bare = (h: string) => h.replace(/^\[|\]$/g, '')

describe("Toolgate's port through the egress proxy", () => {
  it('every spelling of the loopback reaches this machine when nothing is in the way (the test can fail)', async () => {
    for (const h of LOOPBACK_SPELLINGS) {
      expect(await attack('open', 'connect', { host: bare(h), port: wide.port }), h).toMatch(/^ok: connected/)
    }
    expect(await attack('open', 'connect', { host: '::ffff:7f00:1', port })).toMatch(/^ok: connected/)
  })

  it('an allowlist that names the loopback in any spelling gets 403 for Toolgate and for the local service', async () => {
    for (const h of LOOPBACK_SPELLINGS) {
      for (const p of [port, wide.port]) {
        const r = await attack('listed', 'proxy_connect', { host: h, port: p })
        expect(r, `${h}:${p}`).toMatch(/^denied: HTTP\/1\.1 403 /)
      }
    }
    // and directly (no route: the proxy is its one way out)
    expect(await attack('listed', 'connect', { host: '::ffff:7f00:1', port })).toMatch(/^denied: /)
  })
})

describe("Toolgate's data dir: no key to read, no owner to plant", () => {
  const files = ['toolgate.lock', 'instance.json', 'api_key', 'state.json']

  it('reads nothing of it and writes nothing into it; with sandbox: false it could (the test can fail)', async () => {
    const before = Object.fromEntries(files.map((f) => [f, fs.existsSync(path.join(dataDir, f)) ? fs.readFileSync(path.join(dataDir, f), 'utf8') : null]))
    expect(before['toolgate.lock']).toBe(String(serve.child.pid))
    expect(await attack('boxed', 'read_file', { path: path.join(dataDir, 'toolgate.lock') })).toMatch(/^denied: ENOENT/)
    expect(await attack('boxed', 'read_file', { path: path.join(dataDir, 'instance.json') })).toMatch(/^denied: ENOENT/)
    for (const f of files) {
      const planted = JSON.stringify({ pid: 1, url: 'http://127.0.0.1:9/', mcp_url: null, started_at: 'x', version: 'x', kind: 'serve', api_key_file: null })
      expect(await attack('boxed', 'write_file', { path: path.join(dataDir, f), text: planted }), f).toMatch(/^denied: (EROFS|EACCES|ENOENT)/)
      expect(await attack('boxed', 'write_file', { path: path.join(dataDir, `${f}.new`), text: planted }), f).toMatch(/^denied: (EROFS|EACCES|ENOENT)/)
    }
    for (const f of files) expect(fs.existsSync(path.join(dataDir, f)) ? fs.readFileSync(path.join(dataDir, f), 'utf8') : null, f).toBe(before[f])
    for (const f of files) expect(fs.existsSync(path.join(dataDir, `${f}.new`)), f).toBe(false)
    // Toolgate is still the one owner: the CLI finds it
    const list = await runCli(['servers', 'list', ...serve.flags])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain('boxed')

    expect(await attack('open', 'read_file', { path: path.join(dataDir, 'toolgate.lock') })).toBe(`ok: ${String(serve.child.pid)}`)
  })
})

describe("the backup Toolgate's import --move leaves of a client's config", () => {
  it("is hidden like the config itself: the other server's token stays out of reach (with sandbox: false it is read)", async () => {
    expect(fs.readFileSync(backup, 'utf8')).toContain(CLAUDE_TOKEN)
    expect(await attack('boxed', 'read_file', { path: backup })).toMatch(/^denied: ENOENT/)
    expect(await attack('listed', 'read_file', { path: backup })).toMatch(/^denied: ENOENT/)
    expect(await attack('open', 'read_file', { path: backup })).toContain(CLAUDE_TOKEN)
  })
})

describe("the desktop session's abstract Unix sockets (X server, D-Bus)", () => {
  it('are out of reach of a sandboxed server, network on or with an allowlist; reachable with sandbox: false', async () => {
    for (const name of [X11, DBUS]) {
      expect(await attack('boxed', 'connect', { path: `@${name}` }), name).toMatch(/^denied: ECONNREFUSED/)
      expect(await attack('listed', 'connect', { path: `@${name}` }), name).toMatch(/^denied: ECONNREFUSED/)
      expect(await attack('open', 'connect', { path: `@${name}` }), name).toMatch(/^ok: connected/)
    }
  })
})
