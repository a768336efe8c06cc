// One owner, always reachable: when the owner of the data dir (the first, embedded
// `toolgate stdio`) goes away, killed or by a clean exit, the bridged `toolgate stdio` processes
// take over: one of them becomes the owner, the others reconnect to it. The call in flight gets
// a clear error; later calls succeed on the same MCP session (the clients are never restarted).
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  childPids,
  fixtureEntry,
  logLines,
  launcherPid,
  processesMatching,
  readInstance,
  tempDir,
  trackDescendants,
  waitFor,
  writeJson,
  type FixtureTool,
} from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectStdio, jsonOf, waitForUpstreams, type McpHandle } from '../helpers/mcp-client'

const TOOLS: FixtureTool[] = [
  { name: 'read_doc', description: 'Read a document from the team wiki', annotations: { readOnlyHint: true } },
  { name: 'edit_doc', description: 'Edit a document in the team wiki', annotations: { readOnlyHint: false } },
]

useCleanup()

describe('bridged `toolgate stdio` clients when the owner goes away', () => {
  let dataDir: string
  let toolsFile: string
  let log: string
  let args: string[]
  const clients = new Map<string, McpHandle>()

  const start = async (name: string, extra: string[] = []): Promise<McpHandle> => {
    const c = await connectStdio([...args, ...extra])
    clients.set(name, c)
    return c
  }
  const read = async (c: McpHandle, by: string): Promise<unknown> => {
    try {
      return jsonOf(await c.call('call_tool_read', { name: 'wiki:read_doc', args: { by } }, 30_000))
    } catch (e) {
      throw new Error(`${(e as Error).message}\nstderr of pid ${c.pid}:\n${c.stderr().slice(-3000)}`)
    }
  }

  beforeAll(() => {
    assertBuilt()
    const tmp = tempDir('toolgate-takeover-')
    dataDir = path.join(tmp, 'data')
    toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    log = path.join(tmp, 'calls.log')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { wiki: fixtureEntry(toolsFile, log, { quarantined: false }) },
      agents: [{ name: 'viewer', servers: ['wiki'], permissions: ['read'] }],
    })
    args = ['--config', configPath, '--data-dir', dataDir]
  })

  afterAll(async () => {
    for (const c of clients.values()) await c.close().catch(() => {})
  })

  it('owner killed with SIGKILL: the call in flight fails clearly, one bridge becomes the owner, the other reconnects, later calls succeed', async () => {
    const a = await start('a')
    await waitFor(() => readInstance(dataDir)?.pid === a.pid, 20_000, 'the first stdio to own the data dir')
    await waitForUpstreams(a, ['wiki'])
    const b = await start('b')
    const c = await start('c', ['--agent', 'viewer'])
    expect(childPids(b.pid as number)).toEqual([])
    expect(await read(b, 'b-before')).toEqual({ tool: 'read_doc', arguments: { by: 'b-before' } })

    // a call is running upstream (through b) when the owner dies
    const inFlight = b.call('call_tool_read', { name: 'wiki:read_doc', args: { by: 'in-flight', sleep_ms: 8000 } }).then(
      (r) => new Error(`expected an error, got ${JSON.stringify(r)}`),
      (e: Error) => e,
    )
    await waitFor(() => logLines(log).some((l) => l.arguments.by === 'in-flight'), 15_000, 'the slow call to reach the upstream')
    trackDescendants(a.pid as number)
    process.kill(a.pid as number, 'SIGKILL')

    const err = await inFlight
    expect(err.message).toMatch(/owner process \(pid \d+\).*went away/)
    expect(err.message).toContain(String(a.pid))
    expect(err.message).toMatch(/retry/)

    const heir = await waitFor(
      () => {
        const pid = readInstance(dataDir)?.pid
        return pid === b.pid || pid === c.pid ? pid : undefined
      },
      15_000,
      'a bridge to take the data dir over',
    )
    // same clients, same MCP sessions: no reconnect, no new initialize on their side
    expect(await read(b, 'b-after')).toEqual({ tool: 'read_doc', arguments: { by: 'b-after' } })
    expect(await read(c, 'c-after')).toEqual({ tool: 'read_doc', arguments: { by: 'c-after' } })
    // the agent scope of c survived the takeover
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual([
      'retrieve_tools',
      'call_tool_read',
      'describe_tool',
      'upstream_servers',
      'request_access',
    ])
    const edit = await c.call('call_tool_read', { name: 'wiki:edit_doc', args: {} })
    expect(JSON.stringify(edit)).toMatch(/not in scope/)

    // one upstream process, started by the heir; the other bridge started none
    await waitFor(() => processesMatching(toolsFile).length === 1, 15_000, 'one upstream process (the dead owner’s is gone)')
    expect(launcherPid(processesMatching(toolsFile)[0])).toBe(heir)
    const other = heir === b.pid ? c : b
    expect(childPids(other.pid as number)).toEqual([])
  })

  it('owner exits cleanly (its client quit): the other bridges take over the same way', async () => {
    const owner = readInstance(dataDir)?.pid
    const d = await start('d')
    const [ownerName, ownerClient] = [...clients.entries()].find(([, c]) => c.pid === owner) as [string, McpHandle]
    const rest = [...clients.entries()].filter(([n]) => n !== ownerName && n !== 'a').map(([, c]) => c)
    expect(rest).toHaveLength(2)
    expect(rest).toContain(d)

    await ownerClient.close()
    clients.delete(ownerName)
    const heir = await waitFor(
      () => {
        const pid = readInstance(dataDir)?.pid
        return pid !== undefined && pid !== owner && rest.some((c) => c.pid === pid) ? pid : undefined
      },
      15_000,
      'another bridge to take the data dir over',
    )
    for (const [i, c] of rest.entries()) expect(await read(c, `after-clean-${i}`)).toEqual({ tool: 'read_doc', arguments: { by: `after-clean-${i}` } })
    await waitFor(() => processesMatching(toolsFile).length === 1, 15_000, 'one upstream process')
    expect(launcherPid(processesMatching(toolsFile)[0])).toBe(heir)
  })
})
