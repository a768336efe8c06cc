// docs/contract.md §3 `upstream_servers`: list/get entries (key order, per-status tool counts only
// when something is locked), add always lands quarantined, remove/enable/disable/restart only
// when the operator allows agent server changes, scope on every operation.
import fs from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { agentScope } from '../../src/main/core/access/scope'
import { approveServer } from '../../src/main/core/catalog/server-decisions'
import { agentSession, buildWorld, makeFixture, READ, runServer, tool, WORLD_CONFIG, type Fixture } from '../helpers/catalog-fixture'

const ENTRY_KEYS = [
  'name',
  'protocol',
  'enabled',
  'quarantined',
  'state',
  'last_error',
  'tools',
  'starts_on_demand',
  'has_run',
  'isolation',
  'protocol_version',
]
/** These stdio servers run in bwrap on this machine (docs/isolation.md); never connected here, so no protocol version yet. */
const ISOLATED = { isolation: { isolated: true }, protocol_version: null }

async function op(fx: Fixture, args: Record<string, unknown>, scope?: Parameters<typeof agentSession>[1], agentIn?: Awaited<ReturnType<typeof agentSession>>) {
  const agent = agentIn ?? (await agentSession(fx, scope))
  const r = await agent.text('upstream_servers', args)
  return { ...r, json: r.isError ? null : JSON.parse(r.text) }
}

let world: Fixture
beforeAll(async () => {
  world = await buildWorld()
})

describe('As an agent I can list servers and see hidden capability cheaply', () => {
  it('list returns {"servers": [...]} with entries in contract key order', async () => {
    const r = await op(world, { operation: 'list' })
    expect(Object.keys(r.json)).toEqual(['servers'])
    expect(r.json.servers.map((s: { name: string }) => s.name)).toEqual(['gh', 'files', 'legacy', 'sketchy'])
    for (const s of r.json.servers) {
      const keys = Object.keys(s)
      expect(keys.slice(0, 5)).toEqual(['name', 'protocol', 'enabled', 'quarantined', 'state'])
      const pos = keys.map((k) => ENTRY_KEYS.indexOf(k))
      expect(pos).toEqual([...pos].sort((a, b) => a - b))
    }
  })

  it('each server shows its state and the counts of what is locked, callable first, zero statuses omitted', async () => {
    const r = await op(world, { operation: 'list' })
    const byName = Object.fromEntries(r.json.servers.map((s: { name: string }) => [s.name, s]))
    expect(byName.gh).toEqual({
      name: 'gh',
      protocol: 'stdio',
      enabled: true,
      quarantined: false,
      state: 'stopped',
      tools: { callable: 3, disabled_by_config: 1, disabled_by_user: 1, pending_approval: 1 },
      // lifecycle on_demand (the default): stopped, its next use starts it
      starts_on_demand: true,
      ...ISOLATED,
    })
    expect(Object.keys(byName.gh.tools)[0]).toBe('callable')
    expect(byName.files).toEqual({
      name: 'files',
      protocol: 'stdio',
      enabled: false,
      quarantined: false,
      state: 'disabled',
      tools: { callable: 0, server_disabled: 2 },
      ...ISOLATED,
    })
    expect(byName.legacy).toMatchObject({ quarantined: true, state: 'quarantined', tools: { callable: 0, server_quarantined: 2 } })
    // rule 6: drop_tables (quarantined + config-denied) is not surfaced here either
    expect(byName.sketchy.tools).toEqual({ callable: 0, server_quarantined: 2 })
  })

  it('a fully callable server has no tools key; "callable" is present even when 0', async () => {
    const fx = makeFixture({ mcpServers: { ok: { command: 'node', quarantined: false }, off: { command: 'node', quarantined: false } } })
    await runServer(fx, 'ok', [tool('a_tool', 'A', { annotations: READ }), tool('b_tool', 'B')])
    await runServer(fx, 'off', [tool('c_tool', 'C')])
    fx.writeConfig({ mcpServers: { ok: { command: 'node', quarantined: false }, off: { command: 'node', quarantined: false, enabled: false } } })
    const r = await op(fx, { operation: 'list' })
    expect(r.json.servers[0]).toEqual({
      name: 'ok',
      protocol: 'stdio',
      enabled: true,
      quarantined: false,
      state: 'stopped',
      starts_on_demand: true,
      ...ISOLATED,
    })
    expect(r.json.servers[1].tools).toEqual({ callable: 0, server_disabled: 1 })
  })

  it('a server with an error shows last_error after state, and the protocol version it last spoke', async () => {
    const fx = makeFixture({ mcpServers: { ok: { command: 'node', quarantined: false } } })
    const agent = await agentSession(fx)
    fx.core.manager.connections.set('ok', { state: 'error', lastError: 'spawn node ENOENT', attempt: 0, protocolVersion: '2026-07-28' })
    const r = await op(fx, { operation: 'get', name: 'ok' }, undefined, agent)
    expect(r.json).toEqual({
      server: {
        name: 'ok',
        protocol: 'stdio',
        enabled: true,
        quarantined: false,
        state: 'error',
        last_error: 'spawn node ENOENT',
        // it may run and never listed its tools
        has_run: false,
        ...ISOLATED,
        protocol_version: '2026-07-28',
      },
    })
    expect(Object.keys(r.json.server)).toEqual([
      'name',
      'protocol',
      'enabled',
      'quarantined',
      'state',
      'last_error',
      'has_run',
      'isolation',
      'protocol_version',
    ])
  })

  it('an HTTP server reports protocol http', async () => {
    const fx = makeFixture({ mcpServers: { web: { url: 'https://example.com/mcp', quarantined: false } } })
    const entry = (await op(fx, { operation: 'get', name: 'web' })).json.server
    expect(entry.protocol).toBe('http')
    expect(entry.isolation).toEqual({ isolated: false, reason: expect.stringMatching(/^remote \(HTTP\) server/) })
  })

  it('a server the operator opted out of the sandbox is shown to agents as not isolated, with the reason', async () => {
    const fx = makeFixture({ mcpServers: { raw: { command: 'node', quarantined: false, sandbox: false } } })
    const entry = (await op(fx, { operation: 'get', name: 'raw' })).json.server
    expect(entry.isolation).toEqual({ isolated: false, reason: expect.stringContaining('sandbox: false') })
  })

  it('get returns {"server": entry}, the same entry as in list', async () => {
    const list = await op(world, { operation: 'list' })
    for (const s of list.json.servers) {
      const g = await op(world, { operation: 'get', name: s.name })
      expect(Object.keys(g.json)).toEqual(['server'])
      expect(JSON.stringify(g.json.server)).toBe(JSON.stringify(s))
    }
  })

  it('get of an unknown server, or without a name, is a clear error', async () => {
    const a = await op(world, { operation: 'get', name: 'nope' })
    expect(a.isError).toBe(true)
    expect(a.text).toMatch(/unknown server "nope".*"operation": "list"/)
    const b = await op(world, { operation: 'get' })
    expect(b.isError).toBe(true)
    expect(b.text).toMatch(/needs "name"/)
    const c = await op(world, { operation: 'approve', name: 'legacy' })
    expect(c.isError).toBe(true)
    expect(c.text).toMatch(/operation must be one of list, get, add, remove, enable, disable, restart/)
  })

  it('scope: an agent lists only its servers, and counts only the tools it may use', async () => {
    const ghOnly = agentScope({ name: 'gh-only', servers: ['gh'], permissions: ['read', 'write', 'destructive'] })
    const r = await op(world, { operation: 'list' }, ghOnly)
    expect(r.json.servers.map((s: { name: string }) => s.name)).toEqual(['gh'])
    const g = await op(world, { operation: 'get', name: 'files' }, ghOnly)
    expect(g.isError).toBe(true)
    expect(g.text).toMatch(/not in scope/)
    const reader = agentScope({ name: 'reader', servers: '*', permissions: ['read'] })
    const rr = await op(world, { operation: 'get', name: 'gh' }, reader)
    // read tools of gh: list_repos, search_code (callable); the write/destructive ones are not counted
    expect(rr.json.server.tools).toBeUndefined()
  })
})

describe('As a user, a server an agent adds always lands in quarantine', () => {
  it('add writes the config file, and the new server is quarantined with nothing running', async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false } } })
    const r = await op(fx, { operation: 'add', name: 'weather', command: 'npx', args: ['-y', 'weather-mcp'] })
    expect(r.isError).toBe(false)
    expect(r.json.server).toEqual({ name: 'weather', protocol: 'stdio', enabled: true, quarantined: true, state: 'quarantined', ...ISOLATED })
    expect(r.json.message).toMatch(/quarantine/)
    expect(r.json.message).toMatch(/approves it/)
    const onDisk = JSON.parse(fs.readFileSync(fx.configPath, 'utf8'))
    expect(onDisk.mcpServers.weather).toEqual({ command: 'npx', args: ['-y', 'weather-mcp'] })
    expect(fx.catalog.quarantineOf(fx.catalog.serverConfig('weather')!)).toBe('review')
    expect(fx.store.current.servers.weather).toEqual({
      needs_review: true,
      added_by_agent: { agent: '(admin)', entry: JSON.stringify({ args: ['-y', 'weather-mcp'], command: 'npx' }), client: 'toolgate-test' },
    })
  })

  it('an agent cannot add a server unsandboxed (sandbox: false) or with its own grants; nothing is written', async () => {
    for (const sandbox of [false, { fs_write: ['/'], network: true }, true]) {
      const fx = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false } } })
      const before = fs.readFileSync(fx.configPath, 'utf8')
      const r = await op(fx, { operation: 'add', name: 'escape', command: 'node', args: ['x.js'], sandbox })
      expect(r.isError).toBe(true)
      expect(r.text).toMatch(/agents cannot set "sandbox"/)
      expect(fs.readFileSync(fx.configPath, 'utf8')).toBe(before)
      expect(fx.catalog.serverConfig('escape')).toBeUndefined()
    }
  })

  it('even when the operator turned quarantine off; an agent asking for trust, env or cwd is refused', async () => {
    const fx = makeFixture({ quarantine_enabled: false, mcpServers: [{ name: 'gh', command: 'node' }] })
    const asks = await op(fx, { operation: 'add', name: 'evil', command: 'node', args: ['evil.js'], trust: 'auto', quarantined: false, env: { A: 'b' } })
    expect(asks.isError).toBe(true)
    expect(asks.text).toMatch(/"trust", "quarantined", "env" cannot be set by an agent/)
    expect(fx.catalog.serverConfig('evil')).toBeUndefined()
    const r = await op(fx, { operation: 'add', name: 'evil', command: 'node', args: ['evil.js'] })
    expect(r.isError).toBe(false)
    expect(r.json.server.quarantined).toBe(true)
    const onDisk = JSON.parse(fs.readFileSync(fx.configPath, 'utf8'))
    // the operator's array style is kept
    expect(onDisk.mcpServers[1]).toEqual({ name: 'evil', command: 'node', args: ['evil.js'] })
    expect(fx.catalog.quarantineOf(fx.catalog.serverConfig('evil')!)).toBe('review')
  })

  it('the user approving it is what releases it', async () => {
    const fx = makeFixture({ mcpServers: {} })
    await op(fx, { operation: 'add', name: 'web', url: 'https://example.com/mcp' })
    await approveServer(fx.catalog, 'web')
    expect(fx.catalog.quarantineOf(fx.catalog.serverConfig('web')!)).toBeNull()
  })

  it('re-adding the name of a server the user had approved lands in quarantine again, with no old approvals', async () => {
    const fx = makeFixture({ allow_agent_server_changes: true, mcpServers: {} })
    expect((await op(fx, { operation: 'add', name: 'gh', command: 'node', args: ['gh.js'] })).isError).toBe(false)
    await approveServer(fx.catalog, 'gh')
    await runServer(fx, 'gh', [tool('list_repos', 'List repositories')])
    expect(fx.catalog.entry('gh:list_repos')!.status).toBe('callable')
    expect((await op(fx, { operation: 'remove', name: 'gh' })).isError).toBe(false)
    const r = await op(fx, { operation: 'add', name: 'gh', command: 'node', args: ['gh.js'] })
    expect(r.json.server.quarantined).toBe(true)
    expect(fx.store.current.tools['gh:list_repos']).toBeUndefined()
  })

  it('add refuses an existing name, an invalid entry and a bad name, and writes nothing', async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node' } } })
    const before = fs.readFileSync(fx.configPath, 'utf8')
    const dup = await op(fx, { operation: 'add', name: 'gh', command: 'node' })
    expect(dup.isError).toBe(true)
    expect(dup.text).toMatch(/already exists/)
    const bad = await op(fx, { operation: 'add', name: 'x' })
    expect(bad.isError).toBe(true)
    expect(bad.text).toMatch(/command/)
    const colon = await op(fx, { operation: 'add', name: 'a:b', command: 'node' })
    expect(colon.isError).toBe(true)
    expect(colon.text).toMatch(/no ":"/)
    expect(fs.readFileSync(fx.configPath, 'utf8')).toBe(before)
  })
})

describe('As a user, agents cannot change servers unless the operator allows it', () => {
  it.each(['remove', 'enable', 'disable', 'restart'])('%s is refused with "ask the user" and changes nothing', async (operation) => {
    const fx = makeFixture(WORLD_CONFIG)
    const before = fs.readFileSync(fx.configPath, 'utf8')
    const r = await op(fx, { operation, name: 'files' })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/allow_agent_server_changes is false/)
    expect(r.text).toMatch(new RegExp(`Ask the user to ${operation} "files"`))
    expect(fs.readFileSync(fx.configPath, 'utf8')).toBe(before)
  })

  it('an unknown server is reported as unknown before the permission check', async () => {
    const fx = makeFixture(WORLD_CONFIG)
    const r = await op(fx, { operation: 'remove', name: 'nope' })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/unknown server "nope"/)
  })

  describe('with allow_agent_server_changes:true', () => {
    const CFG = { allow_agent_server_changes: true, mcpServers: { a: { command: 'node', args: ['a.js'] }, b: { command: 'node', quarantined: false } } }

    it('disable and enable edit the config file', async () => {
      const fx = makeFixture(CFG)
      const d = await op(fx, { operation: 'disable', name: 'b' })
      expect(d.isError).toBe(false)
      expect(d.json.server).toMatchObject({ name: 'b', enabled: false, state: 'disabled' })
      expect(JSON.parse(fs.readFileSync(fx.configPath, 'utf8')).mcpServers.b.enabled).toBe(false)
      const e = await op(fx, { operation: 'enable', name: 'b' })
      expect(e.json.server).toMatchObject({ name: 'b', enabled: true })
      expect('enabled' in JSON.parse(fs.readFileSync(fx.configPath, 'utf8')).mcpServers.b).toBe(false)
    })

    it('enable does not release a quarantined server', async () => {
      const fx = makeFixture(CFG)
      const e = await op(fx, { operation: 'enable', name: 'a' })
      expect(e.json.server).toMatchObject({ name: 'a', enabled: true, quarantined: true, state: 'quarantined' })
    })

    it("remove deletes the entry of a server an agent added, and refuses the operator's", async () => {
      const fx = makeFixture(CFG)
      const refused = await op(fx, { operation: 'remove', name: 'a' })
      expect(refused.isError).toBe(true)
      expect(refused.text).toMatch(/only servers that agents added/)
      await op(fx, { operation: 'add', name: 'c', command: 'node', args: ['c.js'] })
      const r = await op(fx, { operation: 'remove', name: 'c' })
      expect(r.json).toEqual({ removed: 'c' })
      expect(Object.keys(JSON.parse(fs.readFileSync(fx.configPath, 'utf8')).mcpServers)).toEqual(['a', 'b'])
      expect(fx.catalog.serverConfig('c')).toBeUndefined()
      expect(fx.store.current.servers.c).toBeUndefined()
    })

    it('restart of a server that is not running says so', async () => {
      const fx = makeFixture(CFG)
      const r = await op(fx, { operation: 'restart', name: 'a' })
      expect(r.isError).toBe(true)
      expect(r.text).toMatch(/not running/)
    })

    it('scope still applies: an agent cannot change a server outside its scope', async () => {
      const fx = makeFixture(CFG)
      const r = await op(fx, { operation: 'disable', name: 'b' }, agentScope({ name: 'only-a', servers: ['a'], permissions: ['read', 'write'] }))
      expect(r.isError).toBe(true)
      expect(r.text).toMatch(/not in scope/)
      expect(JSON.parse(fs.readFileSync(fx.configPath, 'utf8')).mcpServers.b.enabled).toBeUndefined()
    })
  })
})
