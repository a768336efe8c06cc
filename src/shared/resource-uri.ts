// Resource URIs as agents see them (docs/passthrough.md): every URI an upstream gives out is
// rewritten so that it names its server and keeps its scheme, and an agent's URI is read back to
// the server's original on the way in. The server goes into the authority, as a host under the
// reserved `.invalid` name (RFC 6761: it never resolves, so a rewritten https URI opened by
// accident reaches nobody); the original's authority and the rest follow in the path, verbatim:
//
//   file:///notes/a.txt          → file://notes-server.toolgate.invalid/~/notes/a.txt
//   ui://widget/app.html?x=1     → ui://apps.toolgate.invalid/~widget/app.html?x=1
//   https://example.com/a#b      → https://web.toolgate.invalid/~example.com/a#b
//   urn:isbn:0451450523          → urn://books.toolgate.invalid/!isbn:0451450523
//
// `/~` says the original had an authority (`//…`; empty for `file:///`), `/!` that it had none
// (an absolute path or an opaque part, kept as it was). The text after the marker is the
// original's, untouched, so a URI template stays a template whose expansion reads back to the
// expansion of the original template. Reading back is strict: the host must be exactly
// `<server>.toolgate.invalid` (no user info, no port), the server is only ever taken from the
// host (never from the scheme, the path or an encoding of it), and what follows must start with a
// marker; anything else is not a Toolgate resource URI. Pure: shared by the core and the window.

export const RESOURCE_HOST_SUFFIX = '.toolgate.invalid'

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/
/** A server name as the config allows it (letters, digits, "-", "_", "."). */
const SERVER = /^[A-Za-z0-9._-]+$/

/** The agent's URI for a server's URI; null when the original has no scheme (not an absolute URI). */
export function toAgentUri(server: string, uri: string): string | null {
  const m = SCHEME.exec(uri)
  if (!m || !SERVER.test(server)) return null
  const rest = uri.slice(m[0].length)
  const marked = rest.startsWith('//') ? `~${rest.slice(2)}` : `!${rest}`
  return `${m[1]}://${server}${RESOURCE_HOST_SUFFIX}/${marked}`
}

/** The same for a URI template (RFC 6570): its scheme must be literal, the rest may hold expressions. */
export function toAgentTemplate(server: string, template: string): string | null {
  return toAgentUri(server, template)
}

export interface ServerUri {
  /** the server the host names, as written in the URI (match it against the configured names) */
  server: string
  /** the server's own URI */
  uri: string
}

/** An agent's URI read back: the server its host names and that server's URI; null when it is not one Toolgate gave out. */
export function fromAgentUri(agentUri: string): ServerUri | null {
  if (typeof agentUri !== 'string') return null
  const m = SCHEME.exec(agentUri)
  if (!m) return null
  const afterScheme = agentUri.slice(m[0].length)
  if (!afterScheme.startsWith('//')) return null
  const authorityEnd = afterScheme.slice(2).search(/[/?#]/)
  if (authorityEnd < 0) return null
  const authority = afterScheme.slice(2, 2 + authorityEnd)
  if (!authority.toLowerCase().endsWith(RESOURCE_HOST_SUFFIX)) return null
  const server = authority.slice(0, authority.length - RESOURCE_HOST_SUFFIX.length)
  if (!SERVER.test(server)) return null
  const path = afterScheme.slice(2 + authorityEnd)
  if (path.startsWith('/~')) return { server, uri: `${m[1]}://${path.slice(2)}` }
  if (path.startsWith('/!')) return { server, uri: `${m[1]}:${path.slice(2)}` }
  return null
}
