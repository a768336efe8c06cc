// Sandbox attacks from outside: a real `toolgate serve` (under a temp HOME with a fake ~/.ssh) runs the
// attacker fixture (test/fixtures/sandbox/attacker-server.mjs) once sandboxed and once with
// `sandbox: false`. Sandboxed, every attack fails: reading ~/.ssh/id_rsa, reading instance.key
// to approve a server through the control API (also during Inspect), writing outside its
// grants, reaching the host's loopback (Toolgate's port included) or an abstract Unix socket
// (its own network namespace), reading Toolgate's /proc. Unsandboxed the same attacks
// succeed, and every surface shows the server as not isolated.
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, cmdline, runCli, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson, ROOT, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { readOk, textOf, type McpHandle } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'
import { abstractListener, NO_REGISTRY, REGISTRY_HOST, registryReachable } from '../helpers/network'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')

let tmp: string
let home: string
let dataDir: string
let outside: string
let granted: string
let listener: net.Server
let port = 0
let serve: Serve
let mcp: McpHandle
let abstract: Awaited<ReturnType<typeof abstractListener>> | undefined
const ABSTRACT = `toolgate-attacks-${process.pid}`

interface ServerRow {
  name: string
  state: string
  quarantined: boolean
  isolation: {
    isolated: boolean
    mechanism?: string
    reason?: string
    risk?: boolean
    profile: { network: boolean; loopback: number[]; fs_read: string[]; fs_write: string[] } | null
  }
}

const attacker = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [ATTACKER], env: { DATA_DIR: dataDir }, ...extra })

beforeAll(async () => {
  assertBuilt()
  tmp = tempDir('toolgate-sandbox-attacks-')
  home = path.join(tmp, 'home')
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true })
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), '-----BEGIN FAKE PRIVATE KEY-----')
  dataDir = path.join(tmp, 'data')
  outside = path.join(tmp, 'outside')
  granted = path.join(tmp, 'granted')
  fs.mkdirSync(outside)
  fs.mkdirSync(granted)
  listener = net.createServer((s) => s.on('error', () => undefined).end('hello\n'))
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r))
  port = (listener.address() as net.AddressInfo).port
  const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
    mcpServers: {
      boxed: attacker({ quarantined: false, sandbox: { fs_write: [granted] } }),
      offline: attacker({ quarantined: false, sandbox: { network: false } }),
      // granted one local service by port
      local: attacker({ quarantined: false, sandbox: { loopback: [port] } }),
      open: attacker({ quarantined: false, sandbox: false }),
      // never approved: the attackers try to approve these
      victim: attacker(),
      'victim-2': attacker(),
      // attacks at start, so an Inspect runs the attack
      lurker: attacker({ env: { DATA_DIR: dataDir, ATTACK_AT_START: '1', ATTACK_SERVER: 'lurker' } }),
      'lurker-open': attacker({ env: { DATA_DIR: dataDir, ATTACK_AT_START: '1', ATTACK_SERVER: 'lurker-open' }, sandbox: false }),
      // must reach the outside network at start (like npx downloading its package)
      downloader: attacker({ env: { NEED_NETWORK: `${REGISTRY_HOST}:443` } }),
    },
  })
  serve = await startServe({ configPath, dataDir, env: { HOME: home } })
  abstract = await abstractListener(ABSTRACT)
  for (const name of ['boxed', 'offline', 'open', 'local']) await waitForServerState(serve, name, 'connected')
  mcp = await mcpOn(serve)
})

useCleanup(async () => {
  await mcp?.close()
  await stopServe(serve)
  await new Promise((r) => listener.close(r))
  await abstract?.close()
})

function attack(server: string, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  return readOk(mcp, `${server}:${tool}`, args)
}

async function servers(): Promise<Record<string, ServerRow>> {
  const r = await serve.api<{ servers: ServerRow[] }>('GET', '/api/v1/servers')
  return Object.fromEntries(r.json.servers.map((s) => [s.name, s]))
}

describe('a malicious stdio upstream, sandboxed and not', () => {
  it('reading ~/.ssh/id_rsa under the temp HOME: fails sandboxed, succeeds with sandbox: false', async () => {
    const key = path.join(home, '.ssh', 'id_rsa')
    expect(await attack('boxed', 'read_file', { path: key })).toMatch(/^denied: ENOENT/)
    expect(await attack('open', 'read_file', { path: key })).toBe('ok: -----BEGIN FAKE PRIVATE KEY-----')
  })

  it('reading instance.key to approve a quarantined server through the control API: fails sandboxed (it stays quarantined), succeeds with sandbox: false', async () => {
    const boxed = await attack('boxed', 'self_approve', { data_dir: dataDir, server: 'victim' })
    expect(boxed).toMatch(/^denied: could not read the key/)
    expect((await servers()).victim.quarantined).toBe(true)
    // the data dir is hidden, not merely unreadable
    expect(await attack('boxed', 'read_file', { path: path.join(dataDir, 'instance.json') })).toMatch(/^denied: ENOENT/)

    const open = await attack('open', 'self_approve', { data_dir: dataDir, server: 'victim-2' })
    expect(open).toMatch(/^ok: approve answered 200/)
    expect((await servers())['victim-2'].quarantined).toBe(false)
  })

  it("reading Toolgate's environment through /proc (it holds TOOLGATE_API_KEY here): fails sandboxed, succeeds with sandbox: false", async () => {
    const environ = `/proc/${serve.pid}/environ`
    expect(await attack('boxed', 'read_file', { path: environ })).toMatch(/^denied: ENOENT/)
    const seen = JSON.parse((await attack('boxed', 'processes')).slice(4)) as { pid: number; ppid: number; pids: string[] }
    expect(seen.pids).not.toContain(String(serve.pid))
    expect(seen.pids.length).toBeLessThan(5)
    expect(await attack('open', 'read_file', { path: environ })).toContain(`TOOLGATE_API_KEY=${serve.key}`)
  })

  it('writing outside its grants fails sandboxed (inside them it works); with sandbox: false it writes anywhere', async () => {
    const out = path.join(outside, 'planted.txt')
    expect(await attack('boxed', 'write_file', { path: out })).toMatch(/^denied: (ENOENT|EROFS)/) // outside is under the private /tmp
    expect(fs.existsSync(out)).toBe(false)
    expect(await attack('boxed', 'write_file', { path: path.join(home, '.bashrc') })).toMatch(/^denied: EROFS/)
    expect(await attack('boxed', 'write_file', { path: serve.configPath, text: '{}' })).toMatch(/^denied: (ENOENT|EROFS)/)
    expect(fs.readFileSync(serve.configPath, 'utf8')).toContain('"boxed"')
    expect(await attack('boxed', 'write_file', { path: path.join(granted, 'ok.txt') })).toMatch(/^ok: wrote/)
    expect(fs.existsSync(path.join(granted, 'ok.txt'))).toBe(true)

    expect(await attack('open', 'write_file', { path: out })).toMatch(/^ok: wrote/)
    expect(fs.existsSync(out)).toBe(true)
  })

  it("reaching a service on the host's loopback or an abstract Unix socket: fails sandboxed (network on or off), works for a granted port and with sandbox: false", async () => {
    expect(await attack('offline', 'connect', { host: '127.0.0.1', port })).toMatch(/^denied: ECONNREFUSED/)
    expect(await attack('boxed', 'connect', { host: '127.0.0.1', port })).toMatch(/^denied: ECONNREFUSED/)
    expect(await attack('boxed', 'connect', { host: '127.0.0.1', port: serve.port })).toMatch(/^denied: ECONNREFUSED/) // Toolgate's own port
    expect(await attack('boxed', 'connect', { path: `@${ABSTRACT}` })).toMatch(/^denied: ECONNREFUSED/)
    expect(await attack('local', 'connect', { host: '127.0.0.1', port })).toMatch(/^ok: connected/)
    expect(await attack('local', 'connect', { host: '127.0.0.1', port: serve.port })).toMatch(/^denied: ECONNREFUSED/)
    expect(await attack('open', 'connect', { host: '127.0.0.1', port })).toMatch(/^ok: connected/)
    expect(await attack('open', 'connect', { path: `@${ABSTRACT}` })).toMatch(/^ok: connected/)
  })

  it('gets only the environment the config gives plus the safe defaults', async () => {
    const names = JSON.parse((await attack('boxed', 'env')).slice(4)) as string[]
    expect(names).toContain('DATA_DIR')
    expect(names).toContain('PATH')
    expect(names).not.toContain('TOOLGATE_API_KEY')
  })

  it('every surface shows which servers are isolated: control API, `servers list`, upstream_servers', async () => {
    const s = await servers()
    expect(s.boxed.isolation).toMatchObject({ isolated: true, mechanism: 'bwrap' })
    expect(s.boxed.isolation.profile).toEqual({
      network: true,
      loopback: [],
      fs_read: [],
      fs_write: [path.join(home, '.npm'), path.join(home, '.cache'), granted],
    })
    expect(s.local.isolation.profile?.loopback).toEqual([port])
    expect(s.offline.isolation.profile?.network).toBe(false)
    expect(s.open.isolation).toEqual({ isolated: false, reason: expect.stringContaining('sandbox: false'), risk: true, profile: null })

    const list = await runCli(['servers', 'list', ...serve.flags])
    expect(list.code).toBe(0)
    const row = (name: string) => list.stdout.split('\n').find((l) => l.startsWith(`${name} `)) ?? ''
    expect(row('boxed')).toContain('isolated (bwrap)')
    expect(row('open')).toContain('NOT ISOLATED')
    expect(list.stdout).toMatch(/ {2}open: NOT ISOLATED: sandbox: false/)
    expect(list.stdout).toMatch(/ {2}offline: network off; writes: private temp dir/)
    expect(list.stdout).toContain(`  boxed: network on; writes: private temp dir, ${path.join(home, '.npm')}, ${path.join(home, '.cache')}, ${granted}`)
    expect(list.stdout).toContain(`  local: network on; loopback ports: ${port}; writes:`)

    const agent = JSON.parse(textOf(await mcp.call('upstream_servers', { operation: 'list' }))) as { servers: Array<{ name: string; isolation: unknown }> }
    const byName = Object.fromEntries(agent.servers.map((x) => [x.name, x.isolation]))
    expect(byName.boxed).toEqual({ isolated: true })
    expect(byName.open).toEqual({ isolated: false, reason: expect.stringContaining('sandbox: false') })
  })
})

describe('Inspect of a quarantined server that attacks at start', () => {
  it('runs it sandboxed without network: it cannot read the key, and it stays quarantined', async () => {
    const r = await runCli(['servers', 'inspect', 'lurker', ...serve.flags])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('It ran isolated, without network access.')
    expect(r.stdout).toMatch(/attack at start: denied: could not read the key/)
    expect((await servers()).lurker.quarantined).toBe(true)
  })

  it('Inspect with network (--network): still no key, still quarantined', async () => {
    const r = await runCli(['servers', 'inspect', 'lurker', '--network', ...serve.flags])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('It ran isolated, with network access.')
    expect(r.stdout).toMatch(/attack at start: denied: could not read the key/)
    expect((await servers()).lurker.quarantined).toBe(true)
  })

  it("is sandboxed even when the config says sandbox: false (Inspect ignores the server's own permissions)", async () => {
    const r = await runCli(['servers', 'inspect', 'lurker-open', '--network', ...serve.flags])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/attack at start: denied: could not read the key/)
    expect((await servers())['lurker-open'].quarantined).toBe(true)
  })

  it('a server that needs the network to start fails offline with a message offering Inspect with network; with --network it works', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    const offline = await runCli(['servers', 'inspect', 'downloader', ...serve.flags])
    expect(offline.code).toBe(1)
    expect(offline.stderr).toMatch(/cannot download the package/)
    expect(offline.stderr).toContain('toolgate servers inspect downloader --network')
    const api = await serve.api<{ error: { code: string; message: string } }>('POST', '/api/v1/servers/downloader/inspect')
    expect(api.status).toBe(502)
    expect(api.json.error.code).toBe('inspect_failed_offline')
    expect(api.json.error.message).toContain('Inspect with network')

    const online = await runCli(['servers', 'inspect', 'downloader', '--network', ...serve.flags])
    expect(online.code, online.stderr).toBe(0)
    expect(online.stdout).toContain('downloader:read_file')
    // the control API takes the option in the body too
    const viaBody = await fetch(`${serve.url}/api/v1/servers/downloader/inspect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ network: true }),
    })
    expect(viaBody.status).toBe(200)
    const bad = await fetch(`${serve.url}/api/v1/servers/downloader/inspect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ network: 'yes' }),
    })
    expect(bad.status).toBe(400)
  })
})

describe('shutdown of sandboxed servers', () => {
  it('SIGTERM to serve leaves no sandboxed process behind, even one that ignores SIGTERM and stdin EOF', async () => {
    const dir = tempDir('toolgate-sandbox-shutdown-')
    const marker = `stubborn-${process.pid}-${Date.now()}`
    const configPath = writeJson(path.join(dir, 'mcp_config.json'), {
      mcpServers: {
        stubborn: {
          command: process.execPath,
          args: [path.join(ROOT, 'test/fixtures/faults/misbehaving-server.mjs'), '--ignore-term', '--name', marker],
          quarantined: false,
        },
      },
    })
    const s = await startServe({ configPath, dataDir: path.join(dir, 'data'), env: { HOME: home } })
    await waitForServerState(s, 'stubborn', 'connected')
    const everyProcess = (): number[] =>
      fs
        .readdirSync('/proc')
        .filter((e) => /^\d+$/.test(e))
        .map(Number)
        .filter((pid) => cmdline(pid).includes(marker))
    expect(everyProcess().length).toBeGreaterThanOrEqual(2) // bwrap + the server (+ bwrap's PID 1)
    const exit = await stopProcess(s.child)
    expect(exit.code).toBe(0)
    await waitFor(() => everyProcess().length === 0, 10_000, 'no process of the sandboxed server left')
  })
})
