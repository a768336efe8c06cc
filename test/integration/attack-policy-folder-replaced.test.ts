// Attack on the organisation policy's watch (link-watch.ts), from outside: a real `toolgate serve`
// whose policy folder (TOOLGATE_POLICY names it here; /etc/toolgate on a managed machine) is
// replaced the way configuration management and package upgrades do it: another folder renamed
// over it, or the folder removed and made again. The watch of the folder stayed on the folder that
// was there at the start, so the new policy was never read: a command the organisation now blocks
// kept running, and after a removal the policy stayed as the removal left it (here: every server
// blocked; for the machine's own file: no policy at all) until a restart.
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

describe('attack: the policy folder replaced under a running serve', () => {
  it('a folder renamed over it applies its policy; removed and made again, the policy is read again', async () => {
    const tmp = tempDir('toolgate-attack-policy-folder-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } }])
    const org = path.join(tmp, 'org')
    const policyFile = writeJson(path.join(org, 'policy.json'), {})
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: fixtureEntry(tools, path.join(tmp, 'calls.log'), { quarantined: false, lifecycle: 'always' }) },
    })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { TOOLGATE_POLICY: policyFile } })
    try {
      await waitForServerState(serve, 'notes', 'connected')
      await waitForToolStatus(serve, 'notes:read_notes', 'callable')
      // the next generation, written beside it and renamed into place (the old one renamed away first)
      writeJson(path.join(tmp, 'org.new', 'policy.json'), { blocked_commands: [process.execPath] })
      fs.renameSync(org, path.join(tmp, 'org.old'))
      fs.renameSync(path.join(tmp, 'org.new'), org)
      // before: the server kept running, the new policy unread
      await waitForServerState(serve, 'notes', 'disabled', 15_000)
      expect((await notes(serve))?.last_error).toMatch(/blocked_commands.*set by your organisation/)

      // removed (every server stops: the named file is missing, fail closed), then made again without the block
      fs.rmSync(org, { recursive: true })
      await new Promise((r) => setTimeout(r, 500))
      writeJson(policyFile, {})
      // before: the missing file's error stayed until a restart
      await waitForServerState(serve, 'notes', 'connected', 30_000)
      expect((await notes(serve))?.last_error ?? '').not.toMatch(/organisation|policy/)
    } finally {
      await stopServe(serve)
    }
  }, 120_000)
})
