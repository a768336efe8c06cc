// Resources for agents (docs/passthrough.md): resources/list and resources/templates/list gather the
// resources of the approved, running servers in the agent's scope, their URIs rewritten to name
// their server (shared/resource-uri.ts) and their text bounded and neutralised (resource-text.ts);
// a template is listed only when the user approved it as listed now (template-review.ts), and a URI
// only withheld templates describe (not a listed resource) is unknown to resources/read.
// resources/read, completion/complete of a template and subscriptions read an agent's URI back to
// its server and that server's own URI, and pass the same gate as a call (access/decide.ts,
// decideServer): the agent's scope (its servers, read permission), then the server's lock (off or
// quarantined: RESOURCE_BLOCKED with the status and its remediation, like a locked call).
// The server is only ever the one the URI's host names: no other part of a URI can reach another.
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server'
import { fromAgentUri, toAgentTemplate, toAgentUri } from '../../../shared/resource-uri'
import { remediationFor } from '../../../shared/statuses'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Catalog } from '../catalog/catalog'
import type { UpstreamManager } from '../upstream/manager'
import type { Upstream } from '../upstream/upstream'
import type { Logger } from '../log'
import { relayError } from './prompts'
import { withServer } from './hold-server'
import { withRequestLogs } from './request-logs'
import type { LogOwner } from '../upstream/request-logs'
import { agentReadContents, blockSource } from './resource-links'
import type { Scope } from '../access/scope'
import { decideServer } from '../access/decide'
import { appReach, confineApp } from './app-reach'
import { recordedRead, type ReadNote, type RecordRead } from './read-records'
import { agentResource, listableUri } from './resource-text'
import { agentsGet, reviewTemplates, templateMatches } from './template-review'
import { agentCompletion } from './completion-text'

export interface ResourceDeps {
  catalog: Catalog
  manager: UpstreamManager
  logger: Logger
}

/** At most this many resources (and as many templates) per server in one list. */
export const MAX_RESOURCES_PER_SERVER = 1000
const MAX_PAGES = 50
/** The longest one server may take to list its resources before the list goes on without it. */
const LIST_TIMEOUT_MAX_MS = 10_000

/**
 * The configured server in the agent's scope a URI's host names: exactly, else the one whose name
 * matches ignoring case (hosts are lowercased by some clients). Only servers in scope are looked
 * at: whether a case-folded name is "the only one" must not depend on a server the agent cannot
 * see (it would tell it that a server of that name exists).
 */
function serverNamed(catalog: Catalog, scope: Scope, name: string): ServerConfig | undefined {
  const servers = catalog.currentConfig.servers.filter((s) => scope.allowsServer(s.name))
  const exact = servers.find((s) => s.name === name)
  if (exact) return exact
  const folded = servers.filter((s) => s.name.toLowerCase() === name.toLowerCase())
  return folded.length === 1 ? folded[0] : undefined
}

export interface GatedResource {
  server: ServerConfig
  up: Upstream
  /** the server's own URI */
  uri: string
}

const invalid = (message: string): ProtocolError => new ProtocolError(ProtocolErrorCode.InvalidParams, message)

/** What an agent is told of a URI it may not know: one that names no server it may read, or one only withheld templates describe. */
const unknownResource = (agentUri: string): ProtocolError =>
  invalid(`unknown resource "${agentUri}": it is not a URI Toolgate gave out; resources/list and resources/templates/list name the resources you can read.`)

/** An agent's resource URI through the gate, or a protocol error saying why (never anything of a server out of scope). */
export function gateResource(deps: ResourceDeps, scope: Scope, agentUri: string): GatedResource {
  const parsed = fromAgentUri(agentUri)
  const unknown = unknownResource(agentUri)
  if (!parsed) throw unknown
  const named = serverNamed(deps.catalog, scope, parsed.server)
  const a = named ? decideServer(deps.catalog, scope, named.name, 'read') : ({ kind: 'unknown' } as const)
  if (a.kind === 'unknown' || (a.kind === 'out_of_scope' && !a.needs)) throw unknown
  if (a.kind === 'out_of_scope') throw invalid(`agent "${scope.agent}" may not read: its permissions do not include read.`)
  if (a.kind === 'blocked') throw invalid(`RESOURCE_BLOCKED (${a.status}): ${remediationFor(a.status, a.operatorHold, a.organisation)}`)
  const server = a.server
  const up = deps.manager.get(server.name)
  if (!up || up.state !== 'connected')
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `server "${server.name}" is not running (${up?.state ?? 'stopped'}); retry in a moment, or ask the user to check it in the Toolgate window.`,
    )
  return { server, up, uri: parsed.uri }
}

/**
 * Runs `work` with the server an agent's URI names held (a stopped on-demand server
 * starts for it); a URI that names no server the agent may use holds nothing (the gate answers).
 */
export async function withServerOfUri<T>(
  deps: ResourceDeps,
  scope: Scope,
  agentUri: string,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const parsed = fromAgentUri(agentUri)
  const server = parsed ? serverNamed(deps.catalog, scope, parsed.server) : undefined
  if (!server || decideServer(deps.catalog, scope, server.name, 'read').kind !== 'open') return work()
  return withServer(deps.manager, server.name, scope, 'resource', signal, work)
}

/** The running, unlocked servers in the agent's scope that offer resources. */
export function readableResourceServers(deps: ResourceDeps, scope: Scope): Array<{ name: string; up: Upstream; config: ServerConfig }> {
  const out: Array<{ name: string; up: Upstream; config: ServerConfig }> = []
  for (const s of deps.catalog.currentConfig.servers) {
    if (decideServer(deps.catalog, scope, s.name, 'read').kind !== 'open') continue
    const up = deps.manager.get(s.name)
    if (up?.state === 'connected' && up.capabilities?.resources) out.push({ name: s.name, up, config: s })
  }
  return out
}

/** What lists a server's resources: its running upstream, or the connection an Inspect opened (control/inspect.ts). */
export type ResourceLister = Pick<Upstream, 'name' | 'relay'>

/** Every page of a list from one server, up to the cap. */
async function listAll(
  up: ResourceLister,
  method: 'resources/list' | 'resources/templates/list',
  key: 'resources' | 'resourceTemplates',
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES && out.length < MAX_RESOURCES_PER_SERVER; page++) {
    const r = await up.relay(method, cursor === undefined ? {} : { cursor }, { timeoutMs, signal, label: up.name })
    const items = Array.isArray(r[key]) ? (r[key] as unknown[]) : []
    for (const i of items) if (typeof i === 'object' && i !== null && !Array.isArray(i)) out.push(i as Record<string, unknown>)
    cursor = typeof r.nextCursor === 'string' && r.nextCursor !== '' ? r.nextCursor : undefined
    if (cursor === undefined) break
  }
  return out.slice(0, MAX_RESOURCES_PER_SERVER)
}

/** One server's resources and templates with the URIs agents see (one whose URI cannot be rewritten, or may not be listed: resource-text.ts listableUri, is left out). */
export async function serverResources(
  up: Upstream,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{
  resources: Array<Record<string, unknown> & { uri: string; original: string }>
  templates: Array<Record<string, unknown> & { uriTemplate: string; original: string }>
}> {
  const [resources, templates] = await Promise.all([listAll(up, 'resources/list', 'resources', timeoutMs, signal), serverTemplates(up, timeoutMs, signal)])
  const r = []
  for (const x of resources) {
    const uri = typeof x.uri === 'string' && listableUri(x.uri) ? toAgentUri(up.name, x.uri) : null
    if (uri) r.push({ ...x, uri, original: x.uri as string })
  }
  return { resources: r, templates }
}

/** One server's templates with the URI templates agents see (one that cannot be rewritten, or may not be listed, is left out). */
export async function serverTemplates(
  up: ResourceLister,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Array<Record<string, unknown> & { uriTemplate: string; original: string }>> {
  const t = []
  for (const x of await listAll(up, 'resources/templates/list', 'resourceTemplates', timeoutMs, signal)) {
    const uriTemplate = typeof x.uriTemplate === 'string' && listableUri(x.uriTemplate) ? toAgentTemplate(up.name, x.uriTemplate) : null
    if (uriTemplate) t.push({ ...x, uriTemplate, original: x.uriTemplate as string })
  }
  return t
}

/** The same lists from every server the agent may read, in config order; a server that fails or is slow is left out (logged). */
async function gather(deps: ResourceDeps, scope: Scope, signal: AbortSignal, which: 'resources' | 'templates'): Promise<Record<string, unknown>[]> {
  const timeoutMs = Math.min(deps.catalog.currentConfig.call_timeout_ms, LIST_TIMEOUT_MAX_MS)
  const lists = await Promise.all(
    readableResourceServers(deps, scope).map(async ({ name, up, config }) => {
      try {
        const got = await serverResources(up, timeoutMs, signal)
        // an App names only origins its server may reach (app-reach.ts)
        const reach = appReach(config)
        // what an agent reads of each: the standard fields, one line each, escaped and cut (resource-text.ts)
        if (which === 'resources') return got.resources.map((x) => agentResource(confineApp(x, reach)))
        // a template only when approved as listed now (template-review.ts): a new or changed one waits for the user
        const reviewed = await reviewTemplates(deps.catalog, name, got.templates)
        return reviewed.filter(agentsGet).map((t): Record<string, unknown> => confineApp({ ...t.def, uriTemplate: t.agentUriTemplate }, reach))
      } catch (e) {
        deps.logger.warn({ server: name, err: (e as Error).message }, `${which} of a server could not be listed for an agent`)
        return []
      }
    }),
  )
  return lists.flat()
}

/** How a URI an agent sent becomes the URI the gate reads (the direct view also takes a server's own URI: direct-resources.ts). */
export type AgentUriResolver = (uri: string, signal?: AbortSignal) => Promise<string>

export function registerResourceHandlers(
  server: Server,
  deps: ResourceDeps,
  scope: Scope,
  gone: () => string,
  resolve: AgentUriResolver = async (uri) => uri,
  record?: RecordRead,
): void {
  const active = (): void => {
    if (!scope.active()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, gone())
  }
  server.setRequestHandler('resources/list', async (_req, ctx) => {
    active()
    return { resources: (await gather(deps, scope, ctx.mcpReq.signal, 'resources')) as never }
  })
  server.setRequestHandler('resources/templates/list', async (_req, ctx) => {
    active()
    return { resourceTemplates: (await gather(deps, scope, ctx.mcpReq.signal, 'templates')) as never }
  })
  server.setRequestHandler('resources/read', async (req, ctx) =>
    recordedRead(record, ctx, 'resource', req.params.uri, async (note) => {
      active()
      const uri = await resolve(req.params.uri, ctx.mcpReq.signal)
      const parsed = fromAgentUri(uri)
      // the server the URI names among those the agent may see, for the record even when the gate refuses it
      note.server = (parsed ? serverNamed(deps.catalog, scope, parsed.server)?.name : undefined) ?? null
      return withRequestLogs(ctx, scope, deps.catalog, deps.manager.logs, (owner) =>
        withServerOfUri(deps, scope, uri, ctx.mcpReq.signal, () => readResource(deps, scope, uri, ctx.mcpReq.signal, owner, note)),
      )
    }),
  )
}

/**
 * Whether the server offers this URI only by templates agents are not given (new, changed or
 * rejected: template-review.ts agentsGet) and does not list it as a resource: then it is unknown to
 * the agent, as the template is. The server's templates are listed again (what the user decided is
 * about what it lists now; a list that fails falls back on the one it gave last); its resources only
 * when a withheld template describes the URI (one that cannot be listed then counts as not listed).
 * A URI no template describes passes as before: servers serve resources they do not list (links in
 * a tool's result).
 */
async function withheldOnly(deps: ResourceDeps, g: GatedResource, signal: AbortSignal): Promise<boolean> {
  if (!g.up.capabilities?.resources) return false
  const timeoutMs = Math.min(deps.catalog.currentConfig.call_timeout_ms, LIST_TIMEOUT_MAX_MS)
  let templates: Array<{ uriTemplate: string; given: boolean }>
  try {
    const reviewed = await reviewTemplates(deps.catalog, g.server.name, await serverTemplates(g.up, timeoutMs, signal))
    templates = reviewed.map((t) => ({ uriTemplate: t.def.uriTemplate, given: agentsGet(t) }))
  } catch {
    templates = deps.catalog.templates.entries(g.server.name).map((e) => ({ uriTemplate: e.def.uriTemplate, given: e.status === 'callable' }))
  }
  const describing = templates.filter((t) => templateMatches(t.uriTemplate, g.uri))
  if (describing.length === 0 || describing.some((t) => t.given)) return false
  try {
    return !(await listAll(g.up, 'resources/list', 'resources', timeoutMs, signal)).some((r) => r.uri === g.uri)
  } catch {
    return true
  }
}

/** resources/read of an agent's URI through the gate, relayed to its (held) server. */
async function readResource(deps: ResourceDeps, scope: Scope, agentUri: string, signal: AbortSignal, owner: LogOwner, note?: ReadNote): Promise<never> {
  const g = gateResource(deps, scope, agentUri)
  // the user's decision on a template gates reading by it, not only the list
  if (await withheldOnly(deps, g, signal)) throw unknownResource(agentUri)
  if (note) note.passed = true
  let result: Record<string, unknown>
  try {
    result = await g.up.relay(
      'resources/read',
      { uri: g.uri },
      { timeoutMs: deps.catalog.currentConfig.call_timeout_ms, signal, label: `${g.server.name} ${g.uri}`, owner },
    )
  } catch (e) {
    throw relayError(e)
  }
  const contents = Array.isArray(result.contents) ? result.contents : []
  return { ...result, contents: agentReadContents(blockSource(g.server.name, g.server), contents) } as never
}

/**
 * completion/complete of a resource template's argument: answered only for a template the agent
 * may see now (listed and approved as listed: the check resources/templates/list uses), relayed to
 * its server with the server's own template; the values come back as an agent reads listed text.
 */
export async function completeTemplateArgument(
  deps: ResourceDeps,
  scope: Scope,
  params: { ref: { uri: string }; argument: unknown; context?: unknown },
  signal: AbortSignal,
  owner: LogOwner,
): Promise<Record<string, unknown>> {
  return withServerOfUri(deps, scope, params.ref.uri, signal, async () => {
    const g = gateResource(deps, scope, params.ref.uri)
    const timeoutMs = Math.min(deps.catalog.currentConfig.call_timeout_ms, LIST_TIMEOUT_MAX_MS)
    const reviewed = g.up.capabilities?.resources
      ? await reviewTemplates(deps.catalog, g.server.name, (await serverResources(g.up, timeoutMs, signal)).templates)
      : []
    // a template the agent is not given (pending, rejected, changed since approved, never listed) is unknown to it
    if (!reviewed.some((t) => t.def.uriTemplate === g.uri && agentsGet(t)))
      throw invalid(
        `unknown resource template "${params.ref.uri}": it is not a template Toolgate lists to you now; resources/templates/list names the templates you can complete.`,
      )
    if (!g.up.capabilities?.completions) return { completion: { values: [], total: 0, hasMore: false } }
    try {
      const result = await g.up.relay(
        'completion/complete',
        { ...params, ref: { type: 'ref/resource', uri: g.uri } },
        { timeoutMs: deps.catalog.currentConfig.call_timeout_ms, signal, label: `${g.server.name} ${g.uri}`, owner },
      )
      return agentCompletion(result)
    } catch (e) {
      throw relayError(e)
    }
  })
}
