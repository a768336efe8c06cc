// The direct view (docs/passthrough.md, docs/contract.md §8): `POST /mcp/direct` and `toolgate stdio
// --direct` list, next to Toolgate's own tools, every callable tool in the agent's scope as a tool
// of its own, `<server>__<tool>` (agent-names.ts), with its approved definition and annotations and
// `_meta["toolgate/id"] = "server:tool"`. A tool with `_meta.ui` (an MCP App) keeps it, its
// `ui://` resource URI rewritten to the one that reads back through Toolgate. A call by such a
// name, or by a tool's original name (what an App calls its own tool by, when one tool in scope
// has it), becomes the call_tool_* call of that tool: the same gate, confirmation and activity.
import type { Tool } from '@modelcontextprotocol/server'
import { toAgentUri } from '../../../shared/resource-uri'
import type { Catalog, CatalogEntry, CatalogSnapshot } from '../catalog/catalog'
import { agentNames } from '../catalog/agent-names'
import { TOOLGATE_ID_KEY } from './prompts'
import type { Scope } from '../access/scope'
import { entryAccess } from '../access/decide'
import type { ListWatch } from './list-changed'
import { agentTools } from './tool-defs'

interface Names {
  byId: Map<string, string>
  byName: Map<string, string>
}

/**
 * The agent-visible names of the tools of the servers in an agent's scope, once per catalog
 * snapshot and set of servers. Named within the scope only: a name that meets another's outside
 * it would otherwise come out hashed, telling the agent that a tool out of its scope exists.
 */
const namesOf = new WeakMap<CatalogSnapshot, Map<string, Names>>()

function names(snapshot: CatalogSnapshot, scope: Scope): Names {
  const servers = [...snapshot.byServer.keys()].filter((s) => scope.allowsServer(s))
  const key = JSON.stringify(servers)
  let perScope = namesOf.get(snapshot)
  if (!perScope) {
    perScope = new Map()
    namesOf.set(snapshot, perScope)
  }
  let n = perScope.get(key)
  if (!n) {
    const refs = servers.flatMap((s) => (snapshot.byServer.get(s) ?? []).map((e) => ({ id: e.id, server: e.server, name: e.name })))
    const byId = agentNames(refs)
    n = { byId, byName: new Map([...byId].map(([id, name]) => [name, id])) }
    perScope.set(key, n)
  }
  return n
}

/** A tool an agent may call through the direct view: what the one access decision calls callable for it. */
function offered(catalog: Catalog, e: CatalogEntry, scope: Scope): boolean {
  return !e.hidden && entryAccess(catalog, scope, e).kind === 'callable'
}

/**
 * `_meta.ui` of an App tool, its resourceUri naming Toolgate's URI (also under the older
 * "ui/resourceUri" key). A resourceUri that cannot be rewritten (not an absolute URI: "//host/…"
 * a host could resolve anywhere) is left out: only URIs that read back to the tool's own server go out.
 */
function uiMeta(e: CatalogEntry): Record<string, unknown> {
  const ui = e.def.ui
  if (!ui) return {}
  const { resourceUri, ...rest } = ui
  const rewritten = typeof resourceUri === 'string' ? (toAgentUri(e.server, resourceUri) ?? undefined) : undefined
  return {
    ui: { ...rest, ...(rewritten !== undefined ? { resourceUri: rewritten } : {}) },
    ...(rewritten !== undefined ? { 'ui/resourceUri': rewritten } : {}),
  }
}

/** The upstream tools of the direct view, in catalog order. */
export function directTools(catalog: Catalog, scope: Scope): Tool[] {
  const snapshot = catalog.snapshot()
  const n = names(snapshot, scope)
  const out: Tool[] = []
  for (const list of snapshot.byServer.values()) {
    for (const e of list) {
      if (!offered(catalog, e, scope)) continue
      out.push({
        name: n.byId.get(e.id) ?? e.id,
        ...(e.def.title ? { title: e.def.title } : {}),
        description: e.def.description,
        inputSchema: e.def.inputSchema as Tool['inputSchema'],
        ...(e.def.outputSchema ? { outputSchema: e.def.outputSchema as Tool['outputSchema'] } : {}),
        ...(e.def.annotations ? { annotations: { ...e.def.annotations } } : {}),
        _meta: { [TOOLGATE_ID_KEY]: e.id, ...uiMeta(e) },
      })
    }
  }
  return out
}

/** What a direct-view agent's tools list is, for list_changed (list-changed.ts): the meta-tools and its upstream tools. */
export function directListViews(catalog: Catalog, scope: Scope): NonNullable<ListWatch['views']> {
  return { tools: () => [agentTools(scope).map((t) => t.name), directTools(catalog, scope)] }
}

/**
 * The tool a direct call names: its agent-visible name, or the original name of exactly one tool
 * the agent may call (an App calls its tool by that). Else a sentence saying why not.
 */
export function resolveDirect(catalog: Catalog, scope: Scope, name: string): { entry: CatalogEntry } | { error: string } {
  const snapshot = catalog.snapshot()
  const id = names(snapshot, scope).byName.get(name)
  const byAgentName = id === undefined ? undefined : snapshot.byId.get(id)
  // the gate (call_tool_*) decides about a named tool, also a locked one: it says why; a tool of a
  // server out of the agent's scope does not exist for it (the answer must not tell it apart from a made-up name)
  if (byAgentName && scope.allowsServer(byAgentName.server)) return { entry: byAgentName }
  // every tool of that name on a server in reach counts, callable or not: else a tool switched off
  // or waiting for review would hand its calls (an App calling its own tool) to another server's
  // tool of the same name; the one match then passes the gate, which says why a locked one is refused
  const matches: CatalogEntry[] = []
  for (const list of snapshot.byServer.values()) for (const e of list) if (e.name === name && !e.hidden && scope.allowsServer(e.server)) matches.push(e)
  if (matches.length === 1) return { entry: matches[0] }
  if (matches.length > 1)
    return {
      error: `tool name "${name}" is ambiguous: ${matches.map((e) => names(snapshot, scope).byId.get(e.id) ?? e.id).join(', ')} have it; call one of these names.`,
    }
  return { error: `unknown tool "${name}"; tools/list names the tools you can call (Toolgate's own and <server>__<tool>).` }
}
