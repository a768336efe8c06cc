// A real `toolgate serve` in a temp dir with one raw hostile upstream, `ht` unless named otherwise
// (test/fixtures/servers/hostile-server.mjs: approved, always running, its answers read from a
// state file the test rewrites), and the tokens of the agents that may read it (`reader`).
import fs from 'node:fs'
import path from 'node:path'
import { ROOT, startServe, tempDir, waitForServerState, writeJson, type Serve } from './cli'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')

export interface HostileOptions {
  /** the server's name in the config (default `ht`) */
  name?: string
  /** more of its env (a secret it must never leak: API_TOKEN) */
  env?: Record<string, string>
  /** keys of its sandbox over `{fs_read: [tmp]}` (network as the default) */
  sandbox?: Record<string, unknown>
  /** it waits in quarantine for the user's review instead (not started, not waited for) */
  quarantined?: boolean
  /** the agents of the config, each may read the server and gets a token (default `reader`; [] for none) */
  agents?: string[]
  /** how long it may take to connect (default 30 s) */
  connectMs?: number
}

export interface HostileServe {
  serve: Serve
  /** the `reader` agent's token ('' without that agent) */
  token: string
  /** each agent's token */
  tokens: Record<string, string>
  tmp: string
  /** the upstream's state file (HOSTILE_STATE) */
  stateFile: string
  /** Toolgate's data dir */
  dataDir: string
  configPath: string
}

/** Starts serve with the server answering from `upstream` (written to its state file first) and waits until it is connected (unless `quarantined`). */
export async function serveHostile(prefix: string, upstream: Record<string, unknown>, o: HostileOptions = {}): Promise<HostileServe> {
  const name = o.name ?? 'ht'
  const agents = o.agents ?? ['reader']
  const tmp = tempDir(prefix)
  const stateFile = path.join(tmp, 'upstream.json')
  const dataDir = path.join(tmp, 'data')
  fs.writeFileSync(stateFile, JSON.stringify(upstream))
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    mcpServers: {
      [name]: {
        command: process.execPath,
        args: [HOSTILE],
        env: { HOSTILE_STATE: stateFile, ...o.env },
        sandbox: { fs_read: [tmp], ...o.sandbox },
        // without the key a new server waits in quarantine for the user (the key would be the operator's hold)
        ...(o.quarantined ? {} : { quarantined: false }),
        lifecycle: 'always',
      },
    },
    ...(agents.length > 0 ? { agents: agents.map((a) => ({ name: a, servers: [name], permissions: ['read'] })) } : {}),
  })
  const serve = await startServe({ configPath, dataDir })
  const tokens: Record<string, string> = {}
  for (const a of agents) tokens[a] = (await serve.api<{ token: string }>('POST', `/api/v1/agents/${a}/token`)).json.token
  if (!o.quarantined) await waitForServerState(serve, name, 'connected', o.connectMs)
  return { serve, token: tokens.reader ?? '', tokens, tmp, stateFile, dataDir, configPath }
}
