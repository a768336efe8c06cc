// Serves for the tests of questions from servers: the asker fixture (test/fixtures/servers/asker-server.mjs), a
// server that asks the user (elicitation, sampling) when called, as a config entry of either era, and a
// `toolgate serve` in a fresh temp dir that resolves once every server of its config is connected.
import path from 'node:path'
import { ROOT, startServe, tempDir, waitForServerState, writeJson, type Serve } from './cli'

export const ASKER = path.join(ROOT, 'test/fixtures/servers/asker-server.mjs')

/** A config entry for an asker out of quarantine: `legacy` speaks 2025 only, `modern` 2026-07-28 too; `extra` adds to it. */
export function askerEntry(era: 'legacy' | 'modern', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: era === 'legacy' ? [ASKER, '--legacy'] : [ASKER], quarantined: false, ...extra }
}

/** `toolgate serve` with `config` in a fresh temp dir (`prefix`), once every server in `config.mcpServers` is connected. */
export async function serveConnected(prefix: string, config: { mcpServers: Record<string, unknown> } & Record<string, unknown>): Promise<Serve> {
  const tmp = tempDir(prefix)
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), config)
  const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  for (const name of Object.keys(config.mcpServers)) await waitForServerState(serve, name, 'connected')
  return serve
}
