// A server's resources as the window and the control API show them (docs/passthrough.md): each
// with the server's own URI and the URI agents use, or a note saying why there are none now.
import type { ServerConfig } from '../../../shared/config-schema'
import type { ResourceInfo } from '../../../shared/resources'
import { serverResources } from '../agent-server/resources'
import type { Catalog } from '../catalog/catalog'
import type { UpstreamManager } from '../upstream/manager'

export async function resourceInfo(catalog: Catalog, manager: UpstreamManager, s: ServerConfig): Promise<ResourceInfo> {
  const server = s.name
  const empty = (note: string): ResourceInfo => ({ server, resources: [], templates: [], note })
  const lock = catalog.serverLock(s)
  if (lock)
    return empty(
      lock.status === 'server_disabled' ? 'The server is switched off.' : 'The server is in quarantine: its resources are listed once it is approved.',
    )
  const up = manager.get(server)
  if (!up || up.state !== 'connected') return empty('The server is not running now; its resources are listed while it runs.')
  if (!up.capabilities?.resources) return empty('This server offers no resources.')
  try {
    const got = await serverResources(up, Math.min(catalog.currentConfig.call_timeout_ms, 10_000))
    const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
    return {
      server,
      resources: got.resources.map((r) => ({
        uri: r.original,
        agent_uri: r.uri,
        name: text(r.name) ?? r.original,
        ...(text(r.title) ? { title: text(r.title) } : {}),
        ...(text(r.description) ? { description: text(r.description) } : {}),
        ...(text(r.mimeType) ? { mimeType: text(r.mimeType) } : {}),
        ...(typeof r.size === 'number' ? { size: r.size } : {}),
      })),
      templates: got.templates.map((t) => ({
        uriTemplate: t.original,
        agent_uri_template: t.uriTemplate,
        name: text(t.name) ?? t.original,
        ...(text(t.title) ? { title: text(t.title) } : {}),
        ...(text(t.description) ? { description: text(t.description) } : {}),
        ...(text(t.mimeType) ? { mimeType: text(t.mimeType) } : {}),
      })),
    }
  } catch (e) {
    return empty(`The server did not list its resources: ${(e as Error).message}`)
  }
}
