// Servers from the app, end to end with the real CLI and a live serve: `toolgate servers add`
// (quarantined until inspected and approved, then callable over MCP), the control API's add /
// edit / remove / restore with the config's own validation messages, the operator's file style
// and keys kept, operator policy never changed, hidden values kept on edit, and undo of a remove
// bringing the approvals back.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, ROOT, runCli, startServe, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo-env-server.mjs')

const call = apiRequest

const row = async (s: Serve, name: string) =>
  ((await call(s, 'GET', '/api/v1/servers')).json.servers as Array<{ name: string; state: string }>).find((x) => x.name === name)
const rawConfig = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'))

describe('servers from the app', () => {
  let dir: string
  let dataDir: string
  let configPath: string
  let serve: Serve
  let mcp: McpHandle
  const flags = (): string[] => ['--config', configPath, '--data-dir', dataDir]

  beforeAll(async () => {
    assertBuilt()
    dir = tempDir('tg-servers-edit-')
    dataDir = path.join(dir, 'data')
    configPath = path.join(dir, 'mcp_config.json')
    // the operator's file: array style, a top-level key Toolgate does not manage, a server with policy
    writeJson(configPath, {
      tools_limit: 7,
      mcpServers: [{ name: 'held', command: process.execPath, args: [ECHO], quarantined: true, disabled_tools: ['ping_echo'] }],
    })
    serve = await startServe({ configPath, dataDir })
    mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
  }, 60_000)

  useCleanup(async () => {
    await mcp?.close().catch(() => undefined)
    await stopServe(serve)
  })

  it('servers add NAME -- COMMAND ARGS: quarantined until inspected and approved, then callable over MCP', async () => {
    const out = path.join(dir, 'added.jsonl')
    const add = await runCli([
      'servers',
      'add',
      'added',
      '--cwd',
      dir,
      '--env',
      `ECHO_OUT=${out}`,
      '--env',
      'ECHO_VARS=MODE',
      '--env',
      'MODE=one',
      ...flags(),
      '--',
      process.execPath,
      ECHO,
      '--x',
    ])
    expect(add.stderr).toBe('')
    expect(add.code).toBe(0)
    expect(add.stdout).toContain('Added added. It waits in quarantine')
    const cfg = rawConfig(configPath)
    expect(cfg.tools_limit).toBe(7)
    expect(Array.isArray(cfg.mcpServers)).toBe(true) // the operator's style is kept
    expect(cfg.mcpServers[1]).toEqual({
      name: 'added',
      command: process.execPath,
      args: [ECHO, '--x'],
      env: { ECHO_OUT: out, ECHO_VARS: 'MODE', MODE: 'one' },
      cwd: dir,
    })
    await waitFor(async () => (await row(serve, 'added'))?.state === 'quarantined', 15_000, 'added quarantined')
    expect(fs.existsSync(out)).toBe(false) // never started before review

    const inspect = await runCli(['servers', 'inspect', 'added', ...flags()])
    expect(inspect.code).toBe(0)
    expect(inspect.stdout).toContain('added:ping_echo')
    const approve = await runCli(['servers', 'approve', 'added', ...flags()])
    expect(approve.code).toBe(0)
    await waitFor(async () => (await row(serve, 'added'))?.state === 'connected', 30_000, 'added connected')
    const r = await mcp.client.callTool({ name: 'call_tool_read', arguments: { name: 'added:ping_echo', args: {} } })
    expect(textOf(r as never)).toBe('pong')
  })

  it('add refuses what the config would refuse, with the same message, and refuses operator policy', async () => {
    const bad = await call(serve, 'POST', '/api/v1/servers', { name: 'web', url: 'not a url' })
    expect(bad.status).toBe(400)
    expect(bad.json.error.message).toContain('$.mcpServers[2].url: Invalid URL')
    const none = await call(serve, 'POST', '/api/v1/servers', { name: 'nothing' })
    expect(none.status).toBe(400)
    expect(none.json.error.message).toContain('a stdio server needs "command"')
    const badName = await call(serve, 'POST', '/api/v1/servers', { name: 'a:b', command: 'x' })
    expect(badName.status).toBe(400)
    expect(badName.json.error.message).toContain('name may contain only letters')
    for (const policy of [{ trust: 'auto' }, { quarantined: false }, { enabled_tools: ['x'] }, { sandbox: false }]) {
      const r = await call(serve, 'POST', '/api/v1/servers', { name: 'sneaky', command: process.execPath, args: [ECHO], ...policy })
      expect(r.status).toBe(409)
      expect(r.json.error.message).toContain('operator policy in mcp_config.json')
    }
    const dup = await call(serve, 'POST', '/api/v1/servers', { name: 'added', command: 'x' })
    expect(dup.status).toBe(409)
    expect(rawConfig(configPath).mcpServers.map((s: { name: string }) => s.name)).toEqual(['held', 'added'])
  })

  it('edit: hidden values are kept, policy stays as the operator wrote it and cannot be changed', async () => {
    const token = 'sk_live_abcdefghijklmnopqrstuvwxyz0123'
    await call(serve, 'POST', '/api/v1/servers', { name: 'withkey', command: process.execPath, args: [ECHO], env: { API_KEY: token, REGION: 'eu' } })
    const view = await call(serve, 'GET', '/api/v1/servers/withkey/entry')
    expect(view.json.entry.env).toEqual({ API_KEY: null, REGION: 'eu' })
    expect(view.text).not.toContain(token)
    const saved = await call(serve, 'PUT', '/api/v1/servers/withkey', {
      name: 'withkey',
      command: process.execPath,
      args: [ECHO],
      env: { API_KEY: null, REGION: 'us' },
    })
    expect(saved.status).toBe(200)
    expect(rawConfig(configPath).mcpServers[2].env).toEqual({ API_KEY: token, REGION: 'us' })

    const held = await call(serve, 'GET', '/api/v1/servers/held/entry')
    expect(held.json.entry.policy).toEqual({ quarantined: true, disabled_tools: ['ping_echo'] })
    const loosen = await call(serve, 'PUT', '/api/v1/servers/held', { name: 'held', command: process.execPath, args: [ECHO], quarantined: false })
    expect(loosen.status).toBe(409)
    expect(loosen.json.error.message).toContain('"quarantined" cannot be set here')
    const edit = await call(serve, 'PUT', '/api/v1/servers/held', { name: 'held', command: process.execPath, args: [ECHO, '--more'] })
    expect(edit.status).toBe(200)
    expect(rawConfig(configPath).mcpServers[0]).toEqual({
      name: 'held',
      command: process.execPath,
      args: [ECHO, '--more'],
      quarantined: true,
      disabled_tools: ['ping_echo'],
    })
  })

  it('remove, then undo: back with its approvals (no second review)', async () => {
    const del = await call(serve, 'DELETE', '/api/v1/servers/added')
    expect(del.status).toBe(200)
    expect(Date.parse(del.json.undo_until)).toBeGreaterThan(Date.now())
    expect(rawConfig(configPath).mcpServers.map((s: { name: string }) => s.name)).not.toContain('added')
    const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'state.json'), 'utf8'))
    expect(Object.keys(state.tools).filter((id) => id.startsWith('added:'))).toEqual([])
    expect(state.servers.added).toBeUndefined()
    const undo = await call(serve, 'POST', '/api/v1/servers/added/restore')
    expect(undo.status).toBe(200)
    await waitFor(async () => (await row(serve, 'added'))?.state === 'connected', 30_000, 'added connected after undo')
    const r = await mcp.client.callTool({ name: 'call_tool_read', arguments: { name: 'added:ping_echo', args: {} } })
    expect(textOf(r as never)).toBe('pong')
    const again = await call(serve, 'POST', '/api/v1/servers/added/restore')
    expect(again.status).toBe(404)
  })

  it('remove, then add the same server again: its approvals come back; a different command waits for review', async () => {
    const entry = rawConfig(configPath).mcpServers.find((s: { name: string }) => s.name === 'added')
    expect((await call(serve, 'DELETE', '/api/v1/servers/added')).status).toBe(200)
    const readd = await call(serve, 'POST', '/api/v1/servers', entry)
    expect(readd.status).toBe(200)
    expect(readd.json.message).toContain('with the approvals it had')
    await waitFor(async () => (await row(serve, 'added'))?.state === 'connected', 30_000, 'added connected after re-add')
    expect((await call(serve, 'DELETE', '/api/v1/servers/added')).status).toBe(200)
    const other = await call(serve, 'POST', '/api/v1/servers', { ...entry, args: [...entry.args, '--changed'] })
    expect(other.json.message).toContain('waits in quarantine')
    await waitFor(async () => (await row(serve, 'added'))?.state === 'quarantined', 15_000, 'changed re-add quarantined')
  })

  it('servers remove NAME from the CLI', async () => {
    const rm = await runCli(['servers', 'remove', 'withkey', ...flags()])
    expect(rm.code).toBe(0)
    expect(rm.stdout).toContain('Removed withkey.')
    const missing = await runCli(['servers', 'remove', 'withkey', ...flags()])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('no server named "withkey"')
  })
})
