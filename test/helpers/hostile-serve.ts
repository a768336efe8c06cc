// A real `toolgate serve` in a temp dir with one raw hostile upstream, `ht`
// (test/fixtures/servers/hostile-server.mjs: approved, always running, its answers read from a
// state file the test rewrites), and the token of an agent `reader` that may read it.
import fs from 'node:fs'
import path from 'node:path'
import { ROOT, startServe, tempDir, waitForServerState, writeJson, type Serve } from './cli'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')

export interface HostileServe {
  serve: Serve
  /** the `reader` agent's token */
  token: string
  tmp: string
  /** the upstream's state file (HOSTILE_STATE) */
  stateFile: string
  /** Toolgate's data dir */
  dataDir: string
}

/**
 * Starts serve with `ht` answering from `upstream` (written to its state file first) and waits until
 * ht is connected; `sandbox` replaces ht's (`{fs_read: [tmp]}`, network as the default);
 * `quarantined`: ht waits in quarantine for the user's review instead (not started).
 */
export async function serveHostile(
  prefix: string,
  upstream: Record<string, unknown>,
  o: { sandbox?: Record<string, unknown>; quarantined?: boolean } = {},
): Promise<HostileServe> {
  const tmp = tempDir(prefix)
  const stateFile = path.join(tmp, 'upstream.json')
  const dataDir = path.join(tmp, 'data')
  fs.writeFileSync(stateFile, JSON.stringify(upstream))
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    mcpServers: {
      ht: {
        command: process.execPath,
        args: [HOSTILE],
        env: { HOSTILE_STATE: stateFile },
        sandbox: { fs_read: [tmp], ...o.sandbox },
        // without the key a new server waits in quarantine for the user (the key would be the operator's hold)
        ...(o.quarantined ? {} : { quarantined: false }),
        lifecycle: 'always',
      },
    },
    agents: [{ name: 'reader', servers: ['ht'], permissions: ['read'] }],
  })
  const serve = await startServe({ configPath, dataDir })
  const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
  if (!o.quarantined) await waitForServerState(serve, 'ht', 'connected')
  return { serve, token, tmp, stateFile, dataDir }
}
