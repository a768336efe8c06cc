// The direct view's resources (docs/passthrough.md): a client of the direct view may name a resource by its
// server's own URI (as a client that knows its server does, or an App its own resources) where the
// agent may read exactly one server that offers it: the one server in the agent's reach that lists
// that URI, or, when none lists it, the one whose template matches it. The URI is then the
// Toolgate URI of that server's resource and passes the resource gate like any other; two servers
// that offer it answer that the URI is ambiguous, naming Toolgate's URIs for both. Every server the
// agent may read is held (a stopped one started) for the lookup. A Toolgate URI is never looked up:
// it names its server already.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { fromAgentUri, toAgentUri } from '../../../shared/resource-uri'
import { readableResourceServers, serverResources, type ResourceDeps } from './resources'
import type { Scope } from '../access/scope'
import { decideServer } from '../access/decide'
import { templateMatches } from './template-review'

/** The longest one server may take to list its resources for a lookup. */
const LOOKUP_TIMEOUT_MAX_MS = 10_000

/** The Toolgate URI for a URI a direct-view client sent: itself when it is one, or when no server the agent may read offers it (the gate then answers). */
export async function directResourceUri(deps: ResourceDeps, scope: Scope, uri: string, signal?: AbortSignal): Promise<string> {
  if (typeof uri !== 'string' || fromAgentUri(uri)) return uri
  const release = await holdReadable(deps, scope, signal)
  try {
    return await lookUp(deps, scope, uri, signal)
  } finally {
    release()
  }
}

/**
 * Holds every server the agent may read for the lookup, starting the stopped on-demand ones: which
 * server offers a URI must not depend on which happen to run. (Else a server whose own URI another
 * server in reach also lists, or matches with a catch-all template, would be read from that other
 * server whenever it is stopped, which is most of the time for an on-demand server.)
 */
async function holdReadable(deps: ResourceDeps, scope: Scope, signal?: AbortSignal): Promise<() => void> {
  const open = deps.catalog.currentConfig.servers.filter((s) => decideServer(deps.catalog, scope, s.name, 'read').kind === 'open')
  const by = { agent: scope.agent, client: null }
  const leases = await Promise.all(open.map((s) => deps.manager.acquire(s.name, { reason: 'resource', by, ...(signal ? { signal } : {}) })))
  return () => {
    for (const l of leases) l?.release()
  }
}

async function lookUp(deps: ResourceDeps, scope: Scope, uri: string, signal?: AbortSignal): Promise<string> {
  const timeoutMs = Math.min(deps.catalog.currentConfig.call_timeout_ms, LOOKUP_TIMEOUT_MAX_MS)
  const asked = readableResourceServers(deps, scope)
  // a server the agent may read that could not say what it offers (not running: an error, a sign-in,
  // a start still under way; or its listing failed) may offer the URI too
  const unknown = deps.catalog.currentConfig.servers
    .filter((s) => decideServer(deps.catalog, scope, s.name, 'read').kind === 'open' && !asked.some((a) => a.name === s.name))
    .filter((s) => deps.manager.get(s.name)?.state !== 'connected')
    .map((s) => s.name)
  const offers = await Promise.all(
    asked.map(async ({ name, up }) => {
      try {
        const got = await serverResources(up, timeoutMs, signal)
        return { name, listed: got.resources.some((r) => r.original === uri), template: got.templates.some((t) => templateMatches(t.original, uri)) }
      } catch (e) {
        deps.logger.warn({ server: name, err: (e as Error).message }, 'resources of a server could not be listed to find a URI')
        unknown.push(name)
        return { name, listed: false, template: false }
      }
    }),
  )
  const listed = offers.filter((o) => o.listed)
  const found = listed.length > 0 ? listed : offers.filter((o) => o.template)
  if (found.length > 1) {
    const names = found.map((o) => toAgentUri(o.name, uri) ?? o.name)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `resource "${uri}" is ambiguous: ${names.join(' and ')} name it on different servers; use one of these URIs.`,
    )
  }
  // one server offers it, but another could not be asked: which one it is must not depend on which could answer now
  if (found.length === 1 && unknown.length > 0) {
    const at = toAgentUri(found[0].name, uri) ?? found[0].name
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `resource "${uri}" cannot be looked up now: ${unknown.map((n) => `"${n}"`).join(', ')} could not say whether ${unknown.length === 1 ? 'it offers' : 'they offer'} it (not running, or its list failed), and Toolgate does not guess. To read it from "${found[0].name}", use ${at}.`,
    )
  }
  return found.length === 1 ? (toAgentUri(found[0].name, uri) ?? uri) : uri
}
