// Attack (session 11, attacker 12) on the symlinked policy's watch (link-watch.ts linkChain), from
// outside: a real `toolgate serve` whose policy file (TOOLGATE_POLICY names it here; /etc/toolgate
// on a managed machine) is a link whose text climbs out of a linked folder, `sub/../policy.json`
// with `sub` a link into the managed tree (a dotfiles or configuration manager's relative link).
// The kernel follows `sub` first and then goes up from where it leads, so the file read is the
// managed tree's; the chain was followed as text (path.resolve folds `sub/..` away), so the watch
// was on a file of that name beside the link, and an edit of the file read was never seen: a command
// the organisation now blocks kept running until a restart.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixtureEntry, startServe, tempDir, waitForServerState, waitForToolStatus, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import type { ServerInfo } from '../../src/shared/api'

useCleanup()

async function notes(serve: Serve): Promise<ServerInfo | undefined> {
  return (await serve.api<{ servers: ServerInfo[] }>('GET', '/api/v1/servers')).json.servers.find((s) => s.name === 'notes')
}

describe('attack12: a policy link that climbs out of a linked folder', () => {
  it('an edit of the file the kernel reads applies while serve runs', async () => {
    const tmp = tempDir('toolgate-attack12-policy-dotdot-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } }])
    // the managed tree: the policy file, and a folder in it the link goes through
    const managed = path.join(tmp, 'managed')
    const read = writeJson(path.join(managed, 'policy.json'), {})
    fs.mkdirSync(path.join(managed, 'gen'))
    const etc = path.join(tmp, 'etc')
    fs.mkdirSync(etc)
    fs.symlinkSync(path.join(managed, 'gen'), path.join(etc, 'sub'))
    const policyFile = path.join(etc, 'policy.json')
    fs.symlinkSync('sub/../policy.json', policyFile)
    // what the kernel reads through the link is the managed file
    expect(fs.readFileSync(policyFile, 'utf8')).toBe(fs.readFileSync(read, 'utf8'))
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: fixtureEntry(tools, path.join(tmp, 'calls.log'), { quarantined: false, lifecycle: 'always' }) },
    })
    const serve: Serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { TOOLGATE_POLICY: policyFile } })
    try {
      await waitForServerState(serve, 'notes', 'connected')
      await waitForToolStatus(serve, 'notes:read_notes', 'callable')
      // the organisation blocks the server's command in the file the link leads to
      writeJson(read, { blocked_commands: [process.execPath] })
      // before: the server kept running, the new policy unread
      await waitForServerState(serve, 'notes', 'disabled', 15_000)
      expect((await notes(serve))?.last_error).toMatch(/blocked_commands.*set by your organisation/)
    } finally {
      await stopServe(serve)
    }
  }, 120_000)
})
