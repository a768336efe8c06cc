// What this Toolgate is and how it is doing, for the window's header, the tray, `toolgate status`
// and GET /api/v1/info and /status: where its files are, its config's warnings, the connect
// snippets, and the counts of servers and tools.
import type { AppInfo, ServerInfo, StatusInfo } from '../../../shared/api'
import { summarizeServers } from '../../../shared/summary'
import { Catalog } from '../catalog/catalog'
import { VERSION } from '../version'
import { connectSnippets } from './connect-snippets'
import type { ServiceDeps } from './deps'

export function appInfo(d: ServiceDeps): AppInfo {
  const config = d.catalog.currentConfig
  return {
    version: VERSION,
    config_path: d.configPath,
    data_dir: d.dataDir,
    mcp_url: d.mcpUrl(),
    config_error: d.configError(),
    config_warnings: config.warnings,
    config_notes: config.notes,
    state_warning: d.catalog.store.warning,
    ...(config.organisation ? { policy: { file: config.organisation.file, error: config.organisation.error } } : {}),
    connect: connectSnippets(d.dataDir, { temporary: d.temporaryDataDir === true }),
    secrets: d.secrets.info(),
  }
}

/** `servers`: every server as the control API shows it, so the counts match the tray and the window's header. */
export function statusInfo(d: ServiceDeps, servers: ServerInfo[]): StatusInfo {
  const all = [...d.catalog.snapshot().byId.values()]
  const sum = summarizeServers(servers) // the same summary as the tray and the UI header
  return {
    version: VERSION,
    uptime_s: Math.round((Date.now() - d.startedAt) / 1000),
    servers: { total: sum.total, connected: sum.connected, quarantined: sum.quarantined, disabled: sum.disabled, error: sum.error },
    tools: { ...Catalog.counts(all, true), total: all.length },
    pending_approvals: sum.waiting,
  }
}
