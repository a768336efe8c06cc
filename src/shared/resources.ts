// A server's resources as the control API and the window show them (docs/passthrough.md): each with
// the server's own URI and the URI agents see (shared/resource-uri.ts), read live from the running
// server. Upstream text (names, descriptions) is untrusted: shown as text.

export interface ResourceEntry {
  /** the server's own URI */
  uri: string
  /** the URI agents see and read it by */
  agent_uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
}

export interface ResourceTemplateEntry {
  uriTemplate: string
  agent_uri_template: string
  name: string
  title?: string
  description?: string
  mimeType?: string
}

export interface ResourceInfo {
  server: string
  resources: ResourceEntry[]
  templates: ResourceTemplateEntry[]
  /** why nothing is listed: the server is not running, offers no resources, or failed to list them */
  note?: string
}
