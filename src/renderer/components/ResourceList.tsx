// The resources of one server (docs/passthrough.md): what it offers agents to read, each with its own URI
// and the URI agents see (it names the server, so it reads back through Toolgate), and its
// resource templates. Read-only: a server's resources are reviewed with the server. Upstream
// text: text nodes only.
import type { ServerInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { Visible } from './Visible'

export function ResourceList({ server }: { server: ServerInfo }) {
  const info = useApp((s) => s.resources[server.name])
  const error = useApp((s) => s.resourceErrors[server.name])
  if (error && !info) return <p className="notice notice--danger">Could not load the resources: {error}</p>
  if (!info || (info.resources.length === 0 && info.templates.length === 0)) return null
  return (
    <section className="resources" aria-label={`Resources of ${server.name}`}>
      <h3 className="section-title small">Resources</h3>
      <ul className="tools">
        {info.resources.map((r) => (
          <li key={r.uri} className="tool" data-resource={r.agent_uri}>
            <div className="tool-main">
              <div className="tool-title">
                <span className="tool-name">
                  <Visible text={r.title ?? r.name} />
                </span>
                {r.mimeType && <span className="muted small">{r.mimeType}</span>}
              </div>
              {r.description && (
                <p className="tool-desc small">
                  <Visible text={r.description} />
                </p>
              )}
              <p className="small muted resource-uris">
                <code title="The server's own URI">
                  <Visible text={r.uri} />
                </code>{' '}
                → agents read{' '}
                <code title="The URI agents see">
                  <Visible text={r.agent_uri} />
                </code>
              </p>
            </div>
          </li>
        ))}
        {info.templates.map((t) => (
          <li key={t.uriTemplate} className="tool" data-resource-template={t.agent_uri_template}>
            <div className="tool-main">
              <div className="tool-title">
                <span className="tool-name">
                  <Visible text={t.title ?? t.name} />
                </span>
                <span className="muted small">template</span>
              </div>
              <p className="small muted resource-uris">
                <code>
                  <Visible text={t.uriTemplate} />
                </code>{' '}
                → agents read{' '}
                <code>
                  <Visible text={t.agent_uri_template} />
                </code>
              </p>
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}
