// Who says a call must wait for the user's OK, besides the queue of waiting calls (confirmations.ts):
// how long a call of a server waits, the user's "Ask me before each call" switch in state.json and
// the words for what it changed, and a server's confirmation settings for the control API and the window.
import { ApiError, type ServerConfirmInfo } from '../../../shared/api'
import type { ServerConfig } from '../../../shared/config-schema'
import { operatorConfirmSentence } from '../../../shared/confirmations'
import type { Catalog } from '../catalog/catalog'
import { confirmationNeeded } from '../access/decide'

/** Seconds a call of this server waits: the server's confirm_timeout_s, else the top level's. */
export function confirmTimeoutS(catalog: Catalog, server: string): number {
  return catalog.serverConfig(server)?.confirm_timeout_s ?? catalog.currentConfig.confirm_timeout_s
}

/**
 * The user's "Ask me before each call" on a server (tool null) or a tool, in state.json. It
 * only adds: switching it off never removes what the config requires (the message says so).
 */
export async function setConfirmSwitch(
  catalog: Catalog,
  server: string,
  tool: string | null,
  ask: boolean,
  changed: (server: string) => void,
): Promise<string> {
  const cfg = catalog.serverConfig(server)
  if (!cfg) throw new ApiError('unknown_server', `no server named "${server}".`, 404)
  const entry = tool === null ? undefined : catalog.entry(`${server}:${tool}`)
  if (tool !== null && !entry)
    throw new ApiError('unknown_tool', `no tool "${tool}" on server "${server}"; \`toolgate tools list ${server}\` shows its tools.`, 404)
  const what = entry ? entry.id : `every tool of ${server}`
  await catalog.store.update((s) => {
    if (entry) {
      const rec = { ...s.tools[entry.id] }
      if (ask) rec.confirm = true
      else delete rec.confirm
      s.tools[entry.id] = rec
    } else {
      const rec = { ...s.servers[server] }
      if (ask) rec.confirm = true
      else delete rec.confirm
      s.servers[server] = rec
    }
  })
  changed(server)
  if (ask) return `Calls of ${what} now wait for your OK (up to ${confirmTimeoutS(catalog, server)} s).`
  const still = entry ? confirmationNeeded(catalog, entry) : null
  const rule = still?.config_rule ?? (entry ? undefined : serverRule(cfg))
  if (still?.user) return `Your switch for ${what} is off, but you still ask before each call of the whole server ${server}.`
  return rule ? `Your switch for ${what} is off; ${operatorConfirmSentence(rule)}` : `Calls of ${what} no longer wait for your OK.`
}

/** The config's rule for a whole server, in words (the UI's locked server switch), or null. */
function serverRule(cfg: ServerConfig): string | null {
  if (cfg.confirm === 'write') return `"confirm": "write" (write and destructive calls)`
  if (cfg.confirm === 'destructive') return `"confirm": "destructive" (destructive calls)`
  return null
}

/** A server's confirmation settings for the control API and the UI. */
export function serverConfirmInfo(catalog: Catalog, cfg: ServerConfig): ServerConfirmInfo {
  return {
    config: cfg.confirm ?? 'never',
    config_tools: [...(cfg.confirm_tools ?? [])],
    user: catalog.store.current.servers[cfg.name]?.confirm === true,
    timeout_s: cfg.confirm_timeout_s ?? catalog.currentConfig.confirm_timeout_s,
  }
}
