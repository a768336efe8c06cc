// The real MCP servers from npm keep working sandboxed: everything, memory (its file
// in a granted folder) and filesystem (a granted folder writable, an ungranted one read-only),
// through a real `toolgate serve` under a temp HOME.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, everythingEntry, FILESYSTEM, MEMORY, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { textOf, type McpHandle } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'

let serve: Serve
let mcp: McpHandle
let granted: string
let readOnly: string
let memoryDir: string

beforeAll(async () => {
  assertBuilt()
  const tmp = tempDir('toolgate-sandbox-npm-')
  const home = path.join(tmp, 'home')
  granted = path.join(tmp, 'granted')
  readOnly = path.join(tmp, 'read-only')
  memoryDir = path.join(tmp, 'memory')
  for (const d of [home, granted, readOnly, memoryDir]) fs.mkdirSync(d)
  fs.writeFileSync(path.join(readOnly, 'existing.txt'), 'already here')
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    mcpServers: {
      everything: everythingEntry({ quarantined: false }),
      memory: {
        command: process.execPath,
        args: [MEMORY],
        env: { MEMORY_FILE_PATH: path.join(memoryDir, 'memory.jsonl') },
        quarantined: false,
        sandbox: { fs_write: [memoryDir] },
      },
      filesystem: {
        command: process.execPath,
        args: [FILESYSTEM, granted, readOnly],
        quarantined: false,
        sandbox: { fs_read: [readOnly], fs_write: [granted], network: false },
      },
    },
  })
  serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { HOME: home } })
  for (const name of ['everything', 'memory', 'filesystem']) await waitForServerState(serve, name, 'connected', 45_000)
  mcp = await mcpOn(serve)
})

useCleanup(async () => {
  await mcp?.close()
  await stopServe(serve)
})

describe('real npm servers, sandboxed', () => {
  it('all three run isolated in bwrap', async () => {
    const r = await serve.api<{ servers: Array<{ name: string; isolation: { isolated: boolean; mechanism?: string } }> }>('GET', '/api/v1/servers')
    for (const s of r.json.servers) expect(s.isolation, s.name).toMatchObject({ isolated: true, mechanism: 'bwrap' })
  })

  it('everything: echo works', async () => {
    const r = await mcp.call('call_tool_read', { name: 'everything:echo', args: { message: 'inside the box' } })
    expect(textOf(r)).toBe('Echo: inside the box')
  })

  it('memory: writes its file in the granted folder and reads it back', async () => {
    const entity = { name: 'sandboxed', entityType: 'test', observations: ['kept in a granted folder'] }
    const create = await mcp.call('call_tool_write', { name: 'memory:create_entities', args: { entities: [entity] } })
    expect(create.isError, textOf(create)).toBeFalsy()
    expect(fs.readFileSync(path.join(memoryDir, 'memory.jsonl'), 'utf8')).toContain('kept in a granted folder')
    expect(textOf(await mcp.call('call_tool_read', { name: 'memory:read_graph', args: {} }))).toContain('sandboxed')
  })

  it('filesystem: writes in the granted folder; the other folder it was given stays read-only', async () => {
    const ok = await mcp.call('call_tool_destructive', { name: 'filesystem:write_file', args: { path: path.join(granted, 'new.txt'), content: 'hello' } })
    expect(ok.isError, textOf(ok)).toBeFalsy()
    expect(fs.readFileSync(path.join(granted, 'new.txt'), 'utf8')).toBe('hello')
    const read = await mcp.call('call_tool_read', { name: 'filesystem:read_text_file', args: { path: path.join(readOnly, 'existing.txt') } })
    expect(textOf(read)).toBe('already here')
    const refused = await mcp.call('call_tool_destructive', { name: 'filesystem:write_file', args: { path: path.join(readOnly, 'new.txt'), content: 'nope' } })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/EROFS|read-only/i)
    expect(fs.existsSync(path.join(readOnly, 'new.txt'))).toBe(false)
  })
})
