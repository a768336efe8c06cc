// The sandbox from outside: hidden files stay hidden through every rewrite. A real
// `toolgate serve` (temp HOME, config file in ~/.config/toolgate, outside the data dir, holding
// the api_key) runs the attacker fixture sandboxed; after Toolgate rewrites the config (a server
// added through the control API, one switched off, one an agent adds through upstream_servers:
// write-file-atomic renames a new file over it) and after an
// editor-style save (write a temp file, rename it over), the running server still cannot read
// the config, so it cannot take the api_key and approve another server. The same for ~/.netrc
// saved by rename and for a credential file created after the server started. The unsandboxed
// control server shows that the attack is real. A server that may write the config's folder
// gets the config covered where it lies, and Toolgate's own writes then keep the file's inode.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, startServe, tempDir, waitFor, waitForServerState, writeJson, ROOT, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { readOk, textOf, type McpHandle } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')
const API_KEY = 'tg-config-api-key-0123456789abcdef'

let tmp: string
let home: string
let configDir: string
let configPath: string
let serve: Serve
let mcp: McpHandle

const attacker = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [ATTACKER], ...extra })

beforeAll(async () => {
  assertBuilt()
  tmp = tempDir('toolgate-sandbox-rename-')
  home = path.join(tmp, 'home')
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(home, '.netrc'), 'machine example.com password first-secret\n')
  fs.writeFileSync(path.join(home, 'notes.txt'), 'ordinary file')
  configDir = path.join(home, '.config', 'toolgate')
  configPath = writeJson(path.join(configDir, 'mcp_config.json'), {
    api_key: API_KEY,
    mcpServers: {
      boxed: attacker({ quarantined: false }),
      open: attacker({ quarantined: false, sandbox: false }),
      victim: attacker(),
      'victim-2': attacker(),
    },
  })
  serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), key: API_KEY, env: { HOME: home } })
  for (const name of ['boxed', 'open']) await waitForServerState(serve, name, 'connected')
  mcp = await mcpOn(serve)
})

useCleanup(async () => {
  await mcp?.close()
  await stopServe(serve)
})

function attack(server: string, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  return readOk(mcp, `${server}:${tool}`, args)
}

async function quarantined(name: string): Promise<boolean> {
  const r = await serve.api<{ servers: Array<{ name: string; quarantined: boolean }> }>('GET', '/api/v1/servers')
  return r.json.servers.find((s) => s.name === name)?.quarantined ?? false
}

const inode = (file: string): number => fs.statSync(file).ino

describe('hidden files stay hidden when they are replaced by rename', () => {
  it('before any rewrite: the config is out of sight', async () => {
    expect(await attack('boxed', 'read_file', { path: configPath })).toMatch(/^denied: ENOENT/)
    expect(await attack('boxed', 'read_file', { path: path.join(home, 'notes.txt') })).toBe('ok: ordinary file')
  })

  it("after Toolgate's own config write (a server added through the control API): the running server cannot read the api_key nor approve a server", async () => {
    const before = inode(configPath)
    const res = await fetch(`${serve.url}/api/v1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'added', command: process.execPath, args: [ATTACKER] }),
    })
    expect(res.status, await res.text()).toBeLessThan(300)
    await waitFor(() => fs.readFileSync(configPath, 'utf8').includes('"added"'), 10_000, 'the config to hold the added server')
    expect(inode(configPath)).not.toBe(before) // a new file was renamed over the old one

    const stolen = await attack('boxed', 'config_approve', { config: configPath, url: serve.url, server: 'victim' })
    expect(stolen).toMatch(/^denied: could not read the config: ENOENT/)
    expect(await quarantined('victim')).toBe(true)
    expect(await attack('boxed', 'read_file', { path: configPath })).not.toContain(API_KEY)

    // the attack is real: the unsandboxed server takes the key and approves
    const open = await attack('open', 'config_approve', { config: configPath, url: serve.url, server: 'victim-2' })
    expect(open).toMatch(/^ok: read the api_key; approve answered 200/)
    expect(await quarantined('victim-2')).toBe(false)
  })

  it('after the user switches a server off and after an agent adds one (each a config write by rename): still no key to take', async () => {
    let before = inode(configPath)
    const off = await serve.api('POST', '/api/v1/servers/victim-2/disable')
    expect(off.status).toBe(200)
    await waitFor(() => inode(configPath) !== before, 10_000, 'the config to be rewritten by the disable')
    expect(await attack('boxed', 'config_approve', { config: configPath, url: serve.url, server: 'victim' })).toMatch(/^denied: could not read the config/)

    before = inode(configPath)
    const added = await mcp.call('upstream_servers', { operation: 'add', name: 'agent-added', command: process.execPath, args: [ATTACKER] })
    expect(added.isError, textOf(added)).toBeFalsy()
    await waitFor(() => fs.readFileSync(configPath, 'utf8').includes('"agent-added"'), 10_000, 'the config to hold the agent-added server')
    expect(inode(configPath)).not.toBe(before)
    expect(await attack('boxed', 'config_approve', { config: configPath, url: serve.url, server: 'victim' })).toMatch(/^denied: could not read the config/)
    expect(await attack('boxed', 'read_file', { path: configPath })).not.toContain(API_KEY)
    expect(await quarantined('victim')).toBe(true)
  })

  it("after an editor's save by rename (temp file, then rename over the config): still out of sight", async () => {
    const before = inode(configPath)
    const text = fs.readFileSync(configPath, 'utf8')
    const swap = path.join(configDir, '.mcp_config.json.swp')
    fs.writeFileSync(swap, text.replace('"victim"', '"victim" ').replace(/\n$/, '\n\n'))
    fs.renameSync(swap, configPath)
    expect(inode(configPath)).not.toBe(before)
    expect(await attack('boxed', 'config_approve', { config: configPath, url: serve.url, server: 'victim' })).toMatch(/^denied: could not read the config/)
    expect(await attack('boxed', 'read_file', { path: configPath })).not.toContain(API_KEY)
    expect(await quarantined('victim')).toBe(true)
  })

  it('~/.netrc saved by rename and a credential file created after the start stay hidden', async () => {
    const netrc = path.join(home, '.netrc')
    fs.writeFileSync(`${netrc}.new`, 'machine example.com password second-secret\n')
    fs.renameSync(`${netrc}.new`, netrc)
    const read = await attack('boxed', 'read_file', { path: netrc })
    expect(read).not.toContain('second-secret')
    expect(read).not.toContain('first-secret')
    fs.writeFileSync(path.join(home, '.pgpass'), 'db:5432:*:me:pg-secret\n')
    expect(await attack('boxed', 'read_file', { path: path.join(home, '.pgpass') })).toMatch(/^denied: ENOENT/)
    // an ordinary file replaced the same way: the server keeps what it saw at its start
    expect(await attack('open', 'read_file', { path: netrc })).toContain('second-secret')
  })

  it("a server that may write the config's folder: the config is covered where it lies, and Toolgate's own writes keep that cover (in place)", async () => {
    const raw = JSON.parse(fs.readFileSync(configPath, 'utf8')) as { mcpServers: Record<string, unknown> }
    raw.mcpServers.careless = attacker({ quarantined: false, cwd: configDir })
    writeJson(configPath, raw)
    await waitForServerState(serve, 'careless', 'connected')
    expect(await attack('careless', 'read_file', { path: configPath })).not.toContain(API_KEY)
    expect(await attack('careless', 'write_file', { path: path.join(configDir, 'left-by-careless.txt') })).toMatch(/^ok: wrote/)

    const before = inode(configPath)
    const res = await fetch(`${serve.url}/api/v1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'added-2', command: process.execPath, args: [ATTACKER] }),
    })
    expect(res.status, await res.text()).toBeLessThan(300)
    await waitFor(() => fs.readFileSync(configPath, 'utf8').includes('"added-2"'), 10_000, 'the config to hold added-2')
    expect(inode(configPath)).toBe(before) // written in place: the cover on the file holds
    expect(await attack('careless', 'read_file', { path: configPath })).not.toContain(API_KEY)
    expect(await attack('careless', 'config_approve', { config: configPath, url: serve.url, server: 'victim' })).toMatch(/^denied/)
    expect(await quarantined('victim')).toBe(true)
    // the other server still sees no config at all
    expect(await attack('boxed', 'read_file', { path: configPath })).toMatch(/^denied: ENOENT/)
  })
})
