// Attack on sandbox plans built together (plan-facts.ts), from outside: a real `toolgate serve`
// starts three servers in one turn of its event loop (lifecycle "always"), so their plans share one
// look at the filesystem. Two of them are given their own HOME (a folder with its own ~/.ssh and
// ~/Library/Keychains, a listed path that is no dot-entry); the one between them has the serve's. A plan must not take another's answers where its
// inputs differ: each server's own home is shown without its credentials, whichever plan of the
// turn asked about those paths first. The same reads with `sandbox: false` succeed, so the test
// can fail.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitForServerState, writeJson } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { mcpOn } from '../helpers/faults'
import { readOk, type McpHandle } from '../helpers/mcp-client'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')

useCleanup()

describe('attack: sandbox plans of one turn, servers with homes of their own', () => {
  it('each server sees its own home without its credentials; unsandboxed, the same reads succeed', async () => {
    const tmp = tempDir('toolgate-attack-plan-share-')
    const put = (file: string, text: string): string => {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, text)
      return file
    }
    const homes = { main: path.join(tmp, 'home'), a: path.join(tmp, 'home-a'), c: path.join(tmp, 'home-c') }
    for (const [who, home] of Object.entries(homes)) {
      put(path.join(home, 'notes.txt'), `NOTES-${who}`)
      put(path.join(home, '.ssh', 'id_rsa'), `KEY-${who}`)
      // a listed credentials path outside the dot-entries (hidden by the list, not by being a dot-entry)
      put(path.join(home, 'Library', 'Keychains', 'login.keychain-db'), `KEYCHAIN-${who}`)
    }
    const dataDir = path.join(tmp, 'data')
    const attacker = (extra: Record<string, unknown>) => ({
      command: process.execPath,
      args: [ATTACKER],
      quarantined: false,
      lifecycle: 'always',
      sandbox: { network: false },
      ...extra,
    })
    const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
      mcpServers: {
        a: attacker({ env: { DATA_DIR: dataDir, HOME: homes.a } }),
        main: attacker({ env: { DATA_DIR: dataDir } }),
        c: attacker({ env: { DATA_DIR: dataDir, HOME: homes.c } }),
        open: attacker({ env: { DATA_DIR: dataDir, HOME: homes.a }, sandbox: false }),
      },
    })
    const serve = await startServe({ configPath, dataDir, env: { HOME: homes.main } })
    let mcp: McpHandle | undefined
    try {
      for (const s of ['a', 'main', 'c', 'open']) await waitForServerState(serve, s, 'connected')
      mcp = await mcpOn(serve)
      const read = (server: string, file: string) => readOk(mcp as McpHandle, `${server}:read_file`, { path: file })
      for (const [server, home] of Object.entries(homes)) {
        // its own home is shown (the folder it runs in)
        expect(await read(server, path.join(home, 'notes.txt')), server).toBe(`ok: NOTES-${server}`)
        for (const secret of [path.join(home, '.ssh', 'id_rsa'), path.join(home, 'Library', 'Keychains', 'login.keychain-db')]) {
          expect(await read('open', secret), `${secret} (sandbox: false)`).toMatch(/^ok: /)
          expect(await read(server, secret), `${server} reads ${secret}`).toMatch(/^denied: /)
        }
      }
      // and not another's home
      expect(await read('a', path.join(homes.c, 'notes.txt'))).toMatch(/^denied: /)
    } finally {
      await mcp?.close()
      await stopServe(serve)
    }
  }, 120_000)
})
