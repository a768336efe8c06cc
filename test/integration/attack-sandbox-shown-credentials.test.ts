// Attack on what a sandboxed server is shown of the home's hidden entries (home-view.ts), from
// outside: a real `toolgate serve` (under a temp HOME) runs the attacker fixture in bwrap, which
// reads credential stores that lie inside the folders shown to every server: uv's toolchain folder
// (~/.local/share/uv, shown so uvx works) holds `uv auth login`'s plain-text credentials store, and
// a folder of Toolgate's PATH in a hidden entry shows that entry or app folder whole (~/.gem for
// `gem install --user-install`'s bin, ~/.config/composer for Composer's global bin), with
// RubyGems' API key and Composer's auth.json beside the programs (uv's store is made while the
// servers run). Each read is tried with `sandbox: false` too, so the test can fail.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitForServerState, writeJson } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { mcpOn } from '../helpers/faults'
import { readOk, type McpHandle } from '../helpers/mcp-client'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')

useCleanup()

describe('attack: credentials inside the home folders shown to a sandboxed server', () => {
  it('uv’s credentials store, RubyGems’ and Composer’s keys are out of sight; the programs beside them are not', async () => {
    const tmp = tempDir('toolgate-attack-shown-creds-')
    const home = path.join(tmp, 'home')
    const put = (rel: string, text: string): string => {
      const file = path.join(home, rel)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, text, { mode: 0o755 })
      return file
    }
    const secrets: Record<string, string> = {
      gem: put('.gem/credentials', '---\n:rubygems_api_key: GEM-API-SECRET'),
      composer: put('.config/composer/auth.json', '{"github-oauth": {"github.com": "COMPOSER-SECRET"}}'),
    }
    // the programs that make these folders shown
    const programs = {
      uv: put('.local/share/uv/tools/ruff/bin/ruff', '#!/bin/sh\necho UV-TOOL'),
      gem: put('.gem/ruby/3.2.0/bin/rake', '#!/bin/sh\necho GEM-PROGRAM'),
      composer: put('.config/composer/vendor/bin/phpunit', '#!/bin/sh\necho COMPOSER-PROGRAM'),
    }
    const PATH = [path.dirname(programs.gem), path.dirname(programs.composer), process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter)
    const dataDir = path.join(tmp, 'data')
    const attacker = (extra: Record<string, unknown>) => ({
      command: process.execPath,
      args: [ATTACKER],
      env: { DATA_DIR: dataDir },
      quarantined: false,
      ...extra,
    })
    const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
      mcpServers: { boxed: attacker({ sandbox: { network: false } }), open: attacker({ sandbox: false }) },
    })
    const serve = await startServe({ configPath, dataDir, env: { HOME: home, PATH } })
    let mcp: McpHandle | undefined
    try {
      for (const s of ['boxed', 'open']) await waitForServerState(serve, s, 'connected')
      mcp = await mcpOn(serve)
      // uv's store made while the servers run (the first 'uv auth login'): out of sight too
      secrets.uv = put('.local/share/uv/credentials/credentials.toml', '[[credential]]\nservice = "https://pypi.example"\npassword = "UV-STORE-SECRET"')
      const read = (server: string, file: string) => readOk(mcp as McpHandle, `${server}:read_file`, { path: file })
      for (const [what, file] of Object.entries(programs)) {
        // shown: the toolchain works in the sandbox
        expect(await read('boxed', file), what).toMatch(/^ok: #!\/bin\/sh/)
      }
      for (const [what, file] of Object.entries(secrets)) {
        expect(await read('open', file), `${what} (sandbox: false)`).toMatch(/SECRET/)
        // before: each was read
        expect(await read('boxed', file), what).toMatch(/^denied: /)
      }
    } finally {
      await mcp?.close()
      await stopServe(serve)
    }
  }, 120_000)
})
