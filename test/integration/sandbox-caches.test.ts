// Package caches from outside: one sandboxed server cannot poison another's
// npx / uvx cache. Through a real `toolgate serve`, the attacker fixture plants files in its
// ~/.npm and ~/.cache; another server does not see them, your own caches (the real ~/.npm,
// ~/.cache of HOME) stay untouched, and the planting server finds its own cache again after a
// restart (a cache that lasts is the point of a cache).
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, startServe, tempDir, waitForServerState, writeJson, ROOT, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { readOk, type McpHandle } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')

let serve: Serve
let mcp: McpHandle
let home: string

beforeAll(async () => {
  assertBuilt()
  const tmp = tempDir('toolgate-sandbox-caches-')
  home = path.join(tmp, 'home')
  fs.mkdirSync(path.join(home, '.npm', '_cacache'), { recursive: true })
  fs.writeFileSync(path.join(home, '.npm', '_cacache', 'yours.txt'), 'your own cache entry')
  const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
    mcpServers: {
      poisoner: { command: process.execPath, args: [ATTACKER], quarantined: false },
      victim: { command: process.execPath, args: [ATTACKER], quarantined: false },
    },
  })
  serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { HOME: home } })
  for (const name of ['poisoner', 'victim']) await waitForServerState(serve, name, 'connected')
  mcp = await mcpOn(serve)
})

useCleanup(async () => {
  await mcp?.close()
  await stopServe(serve)
})

function attack(server: string, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  return readOk(mcp, `${server}:${tool}`, args)
}

describe('each sandboxed server has its own package caches', () => {
  it('what one server plants in ~/.npm and ~/.cache, another does not see, and your caches do not get', async () => {
    expect(await attack('poisoner', 'write_file', { path: path.join(home, '.npm', 'poison'), text: 'malicious tarball' })).toMatch(/^ok: wrote/)
    expect(await attack('poisoner', 'write_file', { path: path.join(home, '.cache', 'poison'), text: 'malicious wheel' })).toMatch(/^ok: wrote/)
    expect(await attack('victim', 'read_file', { path: path.join(home, '.npm', 'poison') })).toMatch(/^denied: ENOENT/)
    expect(await attack('victim', 'read_file', { path: path.join(home, '.cache', 'poison') })).toMatch(/^denied: ENOENT/)
    expect(fs.existsSync(path.join(home, '.npm', 'poison'))).toBe(false)
    expect(fs.existsSync(path.join(home, '.cache', 'poison'))).toBe(false)
    // and your own cache is not theirs to read either
    expect(await attack('victim', 'read_file', { path: path.join(home, '.npm', '_cacache', 'yours.txt') })).toMatch(/^denied: ENOENT/)
  })

  it('a server finds its own cache again after a restart', async () => {
    const restart = await fetch(`${serve.url}/api/v1/servers/poisoner/restart`, { method: 'POST', headers: { authorization: `Bearer ${serve.key}` } })
    expect(restart.status).toBe(200)
    await waitForServerState(serve, 'poisoner', 'connected')
    expect(await attack('poisoner', 'read_file', { path: path.join(home, '.npm', 'poison') })).toBe('ok: malicious tarball')
  })
})
