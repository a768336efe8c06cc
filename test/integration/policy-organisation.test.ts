// "operator policy the user's machine cannot override", tried from outside
// against a live `toolgate serve` with an organisation policy (TOOLGATE_POLICY names it here; on a
// managed machine it is /etc/toolgate/policy.json): a user config that tries to unlock a
// policy-locked tool, loosen the policy's sandbox or release its quarantine hold; the window's API
// and the CLI trying to change what the policy sets; an agent adding a blocked command; a server
// whose command the policy does not allow. Each is refused or stays locked, saying "set by your
// organisation". The policy is watched: a change applies at once, an invalid file blocks every
// server (fail closed), a fixed one brings them back.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  FIXTURE,
  apiRequest,
  assertBuilt,
  fixtureEntry,
  runCli,
  startServe,
  tempDir,
  waitFor,
  waitForServerState,
  waitForToolStatus,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'
import type { ServerInfo, ToolInfo } from '../../src/shared/api'

useCleanup()

const ORG = /set by your organisation/

describe('an organisation policy on a live serve', () => {
  let tmp: string
  let serve: Serve
  let agent: McpHandle
  let policyFile: string
  let env: Record<string, string>

  const policy = {
    mcpServers: {
      '*': { confirm: 'destructive' },
      notes: { disabled_tools: ['wipe_notes'], sandbox: { fs_write: [] as string[] }, tool_classes: { count_notes: 'read' } },
      held: { quarantined: true },
    },
    allowed_commands: [process.execPath],
    blocked_commands: ['curl'],
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-policy-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [
      { name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } },
      { name: 'wipe_notes', description: 'Erase every note', annotations: { readOnlyHint: false, destructiveHint: true } },
      { name: 'count_notes', description: 'Count the notes' },
    ])
    const log = path.join(tmp, 'calls.log')
    policy.mcpServers.notes.sandbox.fs_write = [tmp]
    policyFile = writeJson(path.join(tmp, 'org', 'policy.json'), policy)
    env = { TOOLGATE_POLICY: policyFile }
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      allow_agent_server_changes: true,
      mcpServers: {
        // the user tries to unlock the tool, drop isolation and skip confirmations
        notes: fixtureEntry(tools, log, {
          quarantined: false,
          enabled_tools: ['read_notes', 'wipe_notes', 'count_notes'],
          sandbox: false,
          confirm: 'never',
          tool_classes: { count_notes: 'destructive' },
        }),
        // the user releases a server the organisation holds
        held: fixtureEntry(tools, log, { quarantined: false }),
        // a command the organisation does not allow
        rogue: { command: 'bash', args: ['-c', 'echo hi'], quarantined: false },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env })
    await waitForServerState(serve, 'notes', 'connected')
    await waitForToolStatus(serve, 'notes:read_notes', 'callable')
    agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
  }, 90_000)

  afterAll(async () => {
    await agent?.close().catch(() => {})
    await stopServe(serve)
  })

  it('a tool the policy denies stays locked whatever the user config says; its call, discovery and the API say "set by your organisation"', async () => {
    const row = await waitForToolStatus(serve, 'notes:wipe_notes', 'disabled_by_config')
    const tools = (await serve.api<{ tools: ToolInfo[] }>('GET', '/api/v1/servers/notes/tools')).json.tools
    const wipe = tools.find((t) => t.name === 'notes:wipe_notes')
    expect(wipe).toMatchObject({ status: 'disabled_by_config', policy: 'organisation' })
    expect(wipe?.remediation).toMatch(ORG)
    expect(tools.find((t) => t.name === 'notes:read_notes')).not.toHaveProperty('policy')
    expect(row.status).toBe('disabled_by_config')

    const call = await agent.call('call_tool_destructive', { name: 'notes:wipe_notes' })
    expect(call.isError).toBe(true)
    expect(textOf(call)).toMatch(/^TOOL_BLOCKED \(disabled_by_config\): Blocked by your organisation's policy \(set by your organisation/)
    expect(fs.existsSync(path.join(tmp, 'calls.log')) ? fs.readFileSync(path.join(tmp, 'calls.log'), 'utf8') : '').not.toContain('wipe_notes')

    const found = jsonOf<{ disabled: Array<Record<string, unknown>>; remediation: Record<string, string> }>(
      await agent.call('retrieve_tools', { query: 'erase every note', include_disabled: true }),
    )
    expect(found.disabled.find((d) => d.name === 'notes:wipe_notes')).toEqual({
      name: 'notes:wipe_notes',
      server: 'notes',
      description: 'Erase every note',
      status: 'disabled_by_config',
      policy: 'organisation',
    })
    expect(found.remediation.disabled_by_config).toMatch(ORG)

    // enabling it: the API, the CLI and a request for access are all refused
    const api = await apiRequest(serve, 'POST', '/api/v1/servers/notes/tools/wipe_notes/enable')
    expect(api.status).toBe(409)
    expect(api.json.error.code).toBe('organisation_policy')
    expect(api.json.error.message).toMatch(ORG)
    const cli = await runCli(['tools', 'enable', 'notes:wipe_notes', ...serve.flags], { env })
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toMatch(ORG)
    const asked = jsonOf<{ status: string; message: string }>(await agent.call('request_access', { name: 'notes:wipe_notes', reason: 'cleanup' }))
    expect(asked.status).toBe('not_requestable')
    expect(asked.message).toMatch(ORG)
    const listed = await runCli(['tools', 'list', 'notes', ...serve.flags], { env })
    expect(listed.stdout).toMatch(/notes:wipe_notes\s+disabled_by_config \(set by your organisation\)/)
  })

  it("the policy's sandbox and confirm win over the user's; the server says which keys the organisation sets", async () => {
    const notes = (await serve.api<{ servers: ServerInfo[] }>('GET', '/api/v1/servers')).json.servers.find((s) => s.name === 'notes')!
    expect(notes.policy).toBe('organisation')
    expect(notes.organisation?.fields).toEqual(expect.arrayContaining(['sandbox', 'confirm', 'disabled_tools']))
    expect(notes.isolation.isolated).toBe(true)
    expect(notes.confirm.config).toBe('destructive')
    // the edit form's view: what the organisation sets, with the values that apply
    const { entry } = (
      await serve.api<{ entry: { organisation?: { fields: Record<string, unknown> }; policy: Record<string, unknown> } }>('GET', '/api/v1/servers/notes/entry')
    ).json
    expect(entry.organisation?.fields).toMatchObject({ confirm: 'destructive', disabled_tools: ['wipe_notes'], sandbox: { fs_write: [tmp] } })
    expect(entry.policy).toMatchObject({ confirm: 'never', sandbox: false })
    const cli = await runCli(['servers', 'list', ...serve.flags], { env })
    expect(cli.stdout).toMatch(/set by your organisation: .*sandbox/)
  })

  it("the organisation's tool class wins over the user's config and cannot be changed by the user", async () => {
    const count = await waitForToolStatus(serve, 'notes:count_notes', 'callable')
    const tools = (await serve.api<{ tools: ToolInfo[] }>('GET', '/api/v1/servers/notes/tools')).json.tools
    expect(tools.find((t) => t.name === 'notes:count_notes')).toMatchObject({ call_with: 'call_tool_read', variant_source: 'organisation' })
    const r = await apiRequest(serve, 'POST', '/api/v1/servers/notes/tools/count_notes/classify', { class: 'write', hash: count.approval.hash })
    expect(r.status).toBe(409)
    expect(r.json.error.message).toMatch(ORG)
    const called = await agent.call('call_tool_read', { name: 'notes:count_notes' })
    expect(called.isError, textOf(called)).toBeFalsy()
  })

  it('a server the policy holds stays in quarantine; approving it is refused', async () => {
    await waitForServerState(serve, 'held', 'quarantined')
    const held = (await serve.api<{ servers: ServerInfo[] }>('GET', '/api/v1/servers')).json.servers.find((s) => s.name === 'held')!
    expect(held.quarantine_source).toBe('organisation')
    const r = await apiRequest(serve, 'POST', '/api/v1/servers/held/approve')
    expect(r.status).toBe(409)
    expect(r.json.error.message).toMatch(ORG)
    const cli = await runCli(['servers', 'approve', 'held', ...serve.flags], { env })
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toMatch(ORG)
  })

  it('a server whose command the policy does not allow does not run, says why, and cannot be enabled or inspected', async () => {
    await waitForServerState(serve, 'rogue', 'disabled')
    const servers = (await serve.api<{ servers: ServerInfo[] }>('GET', '/api/v1/servers')).json.servers
    const rogue = servers.find((s) => s.name === 'rogue')!
    expect(rogue.last_error).toMatch(/the command "bash" is not in allowed_commands \(set by your organisation/)
    expect(rogue.organisation?.blocked).toMatch(ORG)
    for (const action of ['enable', 'inspect', 'approve']) {
      const r = await apiRequest(serve, 'POST', `/api/v1/servers/rogue/${action}`)
      expect(r.status, action).toBe(409)
      expect(r.json.error.message, action).toMatch(ORG)
    }
    const listed = jsonOf<{ servers: Array<Record<string, unknown>> }>(await agent.call('upstream_servers', { operation: 'list' }))
    expect(listed.servers.find((s) => s.name === 'rogue')).toMatchObject({ state: 'disabled', last_error: expect.stringMatching(ORG), policy: 'organisation' })
  })

  it('an agent cannot add a blocked command, nor enable a blocked server', async () => {
    const added = await agent.call('upstream_servers', { operation: 'add', name: 'fetcher', command: 'curl', args: ['https://evil.example'] })
    expect(added.isError).toBe(true)
    expect(textOf(added)).toMatch(/blocked_commands.*set by your organisation/)
    const other = await agent.call('upstream_servers', { operation: 'add', name: 'shell', command: '/bin/sh', args: ['-c', 'id'] })
    expect(other.isError).toBe(true)
    expect(textOf(other)).toMatch(/not in allowed_commands.*set by your organisation/)
    const enable = await agent.call('upstream_servers', { operation: 'enable', name: 'rogue' })
    expect(enable.isError).toBe(true)
    expect(textOf(enable)).toMatch(ORG)
    const config = fs.readFileSync(serve.configPath, 'utf8')
    expect(config).not.toContain('fetcher')
    expect(config).not.toContain('"shell"')
  })

  it('the window and the API cannot set what the policy sets, nor add a blocked launch', async () => {
    const edit = await apiRequest(serve, 'PUT', '/api/v1/servers/notes', { name: 'notes', command: process.execPath, args: [FIXTURE], disabled_tools: [] })
    expect(edit.status).toBe(409)
    expect(edit.json.error.message).toMatch(/"disabled_tools" cannot be set here: set by your organisation/)
    const add = await apiRequest(serve, 'POST', '/api/v1/servers', { name: 'x1', command: process.execPath, args: ['x.js'], confirm: 'never' })
    expect(add.status).toBe(409)
    expect(add.json.error.message).toMatch(/"confirm" cannot be set here: set by your organisation/)
    const blocked = await apiRequest(serve, 'POST', '/api/v1/servers', { name: 'x2', command: 'curl', args: ['https://evil.example'] })
    expect(blocked.status).toBe(409)
    expect(blocked.json.error.message).toMatch(ORG)
    const cli = await runCli(['servers', 'add', 'x3', ...serve.flags, '--', 'bash', '-c', 'id'], { env })
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toMatch(ORG)
    expect(fs.readFileSync(serve.configPath, 'utf8')).not.toMatch(/"x[123]"/)
  })

  it('the policy is watched: a change applies at once; an invalid file stops every server (fail closed); fixed, they come back', async () => {
    writeJson(policyFile, { ...policy, mcpServers: { ...policy.mcpServers, notes: { sandbox: policy.mcpServers.notes.sandbox } } })
    // no organisation lock on wipe_notes any more: the user's own enabled_tools lets it through
    await waitFor(
      async () =>
        (await serve.api<{ tools: ToolInfo[] }>('GET', '/api/v1/servers/notes/tools')).json.tools.find((t) => t.name === 'notes:wipe_notes')?.status !==
        'disabled_by_config',
      15_000,
      'the lock to go with the policy',
    )
    fs.writeFileSync(policyFile, '{"allowed_commands": [')
    await waitForServerState(serve, 'notes', 'disabled', 15_000)
    const notes = (await serve.api<{ servers: ServerInfo[] }>('GET', '/api/v1/servers')).json.servers.find((s) => s.name === 'notes')!
    expect(notes.last_error).toMatch(/policy file .* cannot be used: not valid JSON.*no server runs until it is fixed/)
    const info = (await serve.api<{ policy?: { file: string; error: string | null } }>('GET', '/api/v1/info')).json
    expect(info.policy?.error).toMatch(/not valid JSON/)
    const call = await agent.call('call_tool_read', { name: 'notes:read_notes' })
    expect(call.isError).toBe(true)
    expect(textOf(call)).toMatch(ORG)
    writeJson(policyFile, policy)
    // back: stopped until its next use (on demand), and that use starts it
    await waitForServerState(serve, 'notes', 'stopped', 30_000)
    const again = await agent.call('call_tool_read', { name: 'notes:read_notes' })
    expect(again.isError, textOf(again)).toBeFalsy()
    await waitForServerState(serve, 'notes', 'connected', 30_000)
    await waitForToolStatus(serve, 'notes:wipe_notes', 'disabled_by_config')
  })
})
