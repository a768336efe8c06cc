// Issues 11 and 15, from outside: what the user reviews is what runs. A server's review shows its
// launch and a launch_hash; approving (or granting a request that approves it) with that hash
// approves that launch only. A launch changed meanwhile (an agent's upstream_servers update, a
// process editing the config) is refused with 409 launch_changed and stays in quarantine.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, fixtureEntry, runCli, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, type McpHandle } from '../helpers/mcp-client'
import { editEntry, getServer } from '../helpers/config-edit'

useCleanup()

interface Server {
  name: string
  quarantined: boolean
  state: string
  launch: { args?: string[]; env?: Array<{ name: string; value: string }> }
  launch_hash: string
}

const AGENTS = [{ name: 'alice', servers: '*', permissions: ['read', 'write', 'destructive'] }]
const TOOLS = [{ name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } }]

describe('approving a server binds to the launch the user reviewed', () => {
  let tmp: string
  let serve: Serve
  let alice: McpHandle
  let configPath: string
  let entries: Record<string, Record<string, unknown>>

  const server = (name: string): Promise<Server> => getServer<Server>(serve, name)
  /** Rewrites one server's entry in the config file (as an agent's update or another process would) and waits until serve shows the new launch. */
  const changeLaunch = (name: string, change: Record<string, unknown>, seen: (s: Server) => boolean): Promise<Server> =>
    editEntry<Server>({ serve, configPath, rest: { agents: AGENTS }, entries }, name, change, seen)

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-launch-bind-')
    const tools = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    const entry = (name: string) => fixtureEntry(tools, path.join(tmp, `${name}.log`), { env: { NOTES_MODE: 'plain' } })
    entries = { direct: entry('direct'), asked: entry('asked'), inspected: entry('inspected') }
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), { agents: AGENTS, mcpServers: entries })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    alice = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'alice' })
  }, 90_000)

  afterAll(async () => {
    await alice?.close()
    await stopServe(serve)
  })

  it('approve with the reviewed launch_hash: a changed env value is refused (409, still quarantined), the new one approves', async () => {
    const reviewed = await server('direct')
    expect(reviewed.quarantined).toBe(true)
    expect(reviewed.launch_hash).toMatch(/^[0-9a-f]{64}$/)
    expect((await server('direct')).launch_hash).toBe(reviewed.launch_hash) // stable while nothing changes

    // only an env value changes (the kind of change that turns `node index.js` into something else)
    const now = await changeLaunch('direct', { env: { NOTES_MODE: 'plain', NODE_OPTIONS: '--max-old-space-size=96' } }, (s) =>
      Boolean(s.launch.env?.some((e) => e.name === 'NODE_OPTIONS')),
    )
    expect(now.launch_hash).not.toBe(reviewed.launch_hash)

    const stale = await apiRequest(serve, 'POST', '/api/v1/servers/direct/approve', { hash: reviewed.launch_hash })
    expect(stale.status, stale.text).toBe(409)
    expect(stale.json.error.code).toBe('launch_changed')
    expect(stale.json.error.message).toMatch(/changed since you reviewed it/)
    expect(stale.json.error.message).toMatch(/review it again/i)
    const after = await server('direct')
    expect(after).toMatchObject({ quarantined: true, state: 'quarantined' })

    // the CLI binds the same way (--hash), and says what happened
    const cli = await runCli(['servers', 'approve', 'direct', '--hash', reviewed.launch_hash, ...serve.flags])
    expect(cli.code, cli.stdout + cli.stderr).not.toBe(0)
    expect(cli.stderr).toMatch(/changed since you reviewed it/)
    expect((await server('direct')).quarantined).toBe(true)

    // a body that is not a hash is refused before anything happens
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/direct/approve', { hash: 42 })).status).toBe(400)

    const ok = await apiRequest(serve, 'POST', '/api/v1/servers/direct/approve', { hash: now.launch_hash })
    expect(ok.status, ok.text).toBe(200)
    expect((await server('direct')).quarantined).toBe(false)
    await waitForServerState(serve, 'direct', 'connected')
  }, 60_000)

  it('a request grant that approves a quarantined server binds to the launch_hash too', async () => {
    const asked = jsonOf<{ request_id: string; status: string }>(
      await alice.call('request_access', { name: 'asked:read_notes', reason: 'read the meeting notes' }),
    )
    expect(asked.status).toBe('pending')
    const reviewed = await server('asked')
    const listed = (await serve.api<{ requests: Array<{ id: string; launch_hash?: string }> }>('GET', '/api/v1/requests?status=pending')).json.requests
    // the queue names the launch a grant would approve
    expect(listed.find((r) => r.id === asked.request_id)?.launch_hash).toBe(reviewed.launch_hash)

    const now = await changeLaunch('asked', { args: [...(entries.asked.args as string[]), '--extra'] }, (s) => Boolean(s.launch.args?.includes('--extra')))
    expect(now.launch_hash).not.toBe(reviewed.launch_hash)

    const stale = await apiRequest(serve, 'POST', `/api/v1/requests/${asked.request_id}/grant`, { for: 'always', hash: reviewed.launch_hash })
    expect(stale.status, stale.text).toBe(409)
    expect(stale.json.error.code).toBe('launch_changed')
    expect((await server('asked')).quarantined).toBe(true)
    const still = (await serve.api<{ requests: Array<{ id: string; status: string; launch_hash?: string }> }>('GET', '/api/v1/requests')).json.requests
    expect(still.find((r) => r.id === asked.request_id)).toMatchObject({ status: 'pending', launch_hash: now.launch_hash })

    // `requests list` names the launch a grant approves now
    const table = await runCli(['requests', 'list', '--status', 'pending', ...serve.flags])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toContain(`launch_hash: ${now.launch_hash}`)
    const cli = await runCli(['requests', 'grant', asked.request_id, '--for', '1h', '--hash', reviewed.launch_hash, ...serve.flags])
    expect(cli.code, cli.stdout + cli.stderr).not.toBe(0)
    expect(cli.stderr).toMatch(/changed since you reviewed it/)
    expect((await server('asked')).quarantined).toBe(true)

    const ok = await apiRequest(serve, 'POST', `/api/v1/requests/${asked.request_id}/grant`, { for: 'always', hash: now.launch_hash })
    expect(ok.status, ok.text).toBe(200)
    expect((await server('asked')).quarantined).toBe(false)
  }, 60_000)

  it('inspect with a stale launch_hash runs nothing; the CLI inspects and approves the launch it printed', async () => {
    const reviewed = await server('inspected')
    const now = await changeLaunch('inspected', { cwd: tmp }, (s) => s.launch_hash !== reviewed.launch_hash)
    const stale = await apiRequest(serve, 'POST', '/api/v1/servers/inspected/inspect', { hash: reviewed.launch_hash })
    expect(stale.status, stale.text).toBe(409)
    expect(stale.json.error.code).toBe('launch_changed')
    const tools = await serve.api<{ tools: unknown[] }>('GET', '/api/v1/servers/inspected/tools')
    expect(tools.json.tools).toEqual([])
    expect(now.quarantined).toBe(true)

    // the CLI's Inspect prints the launch it runs with its launch_hash, and how to approve exactly that
    const cli = await runCli(['servers', 'inspect', 'inspected', ...serve.flags])
    expect(cli.code, cli.stderr).toBe(0)
    expect(cli.stdout).toContain(`launch_hash: ${now.launch_hash}`)
    expect(cli.stdout).toContain(`toolgate servers approve inspected --hash ${now.launch_hash}`)
    expect(cli.stdout).toContain('read_notes')
    const approved = await runCli(['servers', 'approve', 'inspected', '--hash', now.launch_hash, ...serve.flags])
    expect(approved.code, approved.stderr).toBe(0)
    expect((await server('inspected')).quarantined).toBe(false)
  }, 60_000)

  it('the launch_hash tells nothing about env values: keyed per data dir (0600 key), so two data dirs differ for the same launch', async () => {
    const dirs = [path.join(tmp, 'other-a'), path.join(tmp, 'other-b')]
    const hashes: string[] = []
    for (const dir of dirs) {
      const r = await runCli(['servers', 'list', '--json', '--config', configPath, '--data-dir', dir])
      expect(r.code, r.stderr).toBe(0)
      const s = (JSON.parse(r.stdout) as { servers: Server[] }).servers.find((x) => x.name === 'inspected')
      hashes.push(s?.launch_hash ?? '')
      const key = path.join(dir, 'review.key')
      expect(fs.statSync(key).mode & 0o777).toBe(0o600)
    }
    expect(hashes[0]).toMatch(/^[0-9a-f]{64}$/)
    expect(hashes[1]).toMatch(/^[0-9a-f]{64}$/)
    expect(hashes[0]).not.toBe(hashes[1])
    expect(hashes).not.toContain((await server('inspected')).launch_hash)
    // the same data dir keeps its key: the token stays valid across runs
    const again = await runCli(['servers', 'list', '--json', '--config', configPath, '--data-dir', dirs[0]])
    expect((JSON.parse(again.stdout) as { servers: Server[] }).servers.find((x) => x.name === 'inspected')?.launch_hash).toBe(hashes[0])
  }, 60_000)
})
