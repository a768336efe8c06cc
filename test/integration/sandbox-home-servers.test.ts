// Real npm servers under a home whose node comes from ~/.nvm (the usual install on Linux), run
// sandboxed by a real `toolgate serve`: the toolchain folder on Toolgate's PATH is shown, so
// they start and work; the rest of the home's hidden entries is not, also what is created while
// they run. server-filesystem, given the whole home, is the probe from inside.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, FILESYSTEM, MEMORY, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { textOf, type McpHandle } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'

let serve: Serve
let mcp: McpHandle
let home: string
let memoryDir: string

const put = (rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true })
  fs.writeFileSync(path.join(home, rel), text)
}

beforeAll(async () => {
  assertBuilt()
  const tmp = tempDir('toolgate-sandbox-home-servers-')
  home = path.join(tmp, 'home')
  memoryDir = path.join(tmp, 'memory')
  fs.mkdirSync(memoryDir)
  // node as nvm installs it, in ~/.nvm/versions/node/<v>/bin, under a name found nowhere else
  // on PATH (a server that starts ran this one)
  const nvmBin = path.join(home, '.nvm', 'versions', 'node', process.version, 'bin')
  fs.mkdirSync(nvmBin, { recursive: true })
  const node = path.join(nvmBin, 'node-nvm')
  try {
    fs.linkSync(fs.realpathSync(process.execPath), node)
  } catch {
    fs.copyFileSync(process.execPath, node)
    fs.chmodSync(node, 0o755)
  }
  put('notes.txt', 'ORDINARY-NOTE')
  put('.config/app/settings.json', 'APP-SETTINGS')
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    mcpServers: {
      memory: {
        command: 'node-nvm',
        args: [MEMORY],
        env: { MEMORY_FILE_PATH: path.join(memoryDir, 'memory.jsonl') },
        quarantined: false,
        sandbox: { fs_write: [memoryDir], network: false },
      },
      filesystem: { command: 'node-nvm', args: [FILESYSTEM, home], quarantined: false, sandbox: { network: false } },
    },
  })
  serve = await startServe({
    configPath,
    dataDir: path.join(tmp, 'data'),
    env: { HOME: home, PATH: [nvmBin, process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter) },
  })
  for (const name of ['memory', 'filesystem']) await waitForServerState(serve, name, 'connected', 45_000)
  mcp = await mcpOn(serve)
})

useCleanup(async () => {
  await mcp?.close()
  await stopServe(serve)
})

const read = async (rel: string): Promise<{ isError: boolean; text: string }> => {
  const r = await mcp.call('call_tool_read', { name: 'filesystem:read_text_file', args: { path: path.join(home, rel) } })
  return { isError: r.isError === true, text: textOf(r) }
}

describe('real servers with node from ~/.nvm, sandboxed', () => {
  it('start from the toolchain folder and work (memory writes its granted file)', async () => {
    const r = await serve.api<{ servers: Array<{ name: string; isolation: { isolated: boolean; mechanism?: string } }> }>('GET', '/api/v1/servers')
    for (const s of r.json.servers) expect(s.isolation, s.name).toMatchObject({ isolated: true, mechanism: 'bwrap' })
    const entity = { name: 'nvm-node', entityType: 'test', observations: ['ran on the home toolchain'] }
    const create = await mcp.call('call_tool_write', { name: 'memory:create_entities', args: { entities: [entity] } })
    expect(create.isError, textOf(create)).toBeFalsy()
    expect(fs.readFileSync(path.join(memoryDir, 'memory.jsonl'), 'utf8')).toContain('ran on the home toolchain')
  })

  it('the filesystem server, given the home, reads its ordinary files but no hidden entry, neither old nor made while it runs', async () => {
    expect((await read('notes.txt')).text).toBe('ORDINARY-NOTE')
    put('.config/gcloud/credentials.db', 'LATE-GCLOUD-SECRET')
    put('.aws/credentials', 'LATE-AWS-SECRET')
    for (const rel of ['.config/app/settings.json', '.config/gcloud/credentials.db', '.aws/credentials']) {
      const r = await read(rel)
      expect(r.isError, `${rel}: ${r.text}`).toBe(true)
      expect(r.text).not.toMatch(/SECRET|SETTINGS/)
    }
    const listing = await mcp.call('call_tool_read', { name: 'filesystem:list_directory', args: { path: home } })
    expect(textOf(listing)).toContain('notes.txt')
    expect(textOf(listing)).not.toMatch(/\.config|\.aws/)
  })
})
