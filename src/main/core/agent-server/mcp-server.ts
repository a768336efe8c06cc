// The agent-facing MCP server (docs/contract.md §3): retrieve_tools, call_tool_read/write/destructive,
// describe_tool and upstream_servers, over any transport, in both protocol eras (SDK v2's Server:
// one handler set serves 2025 sessions and 2026-07-28 requests alike). One instance per session
// (2025) or per request (2026-07-28, HTTP), always bound to the agent scope of the credential, so
// what an agent sees never depends on a connection. Arguments are validated here with clear
// messages; upstream results are passed through unchanged.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type Progress,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { callWith } from '../../../shared/call-variant'
import type { Catalog } from '../catalog/catalog'
import type { DiscoveryStats } from '../discovery/stats'
import { RetrieveArgsSchema } from '../discovery/retrieve'
import type { UpstreamManager } from '../upstream/manager'
import type { Logger } from '../log'
import { VERSION } from '../version'
import { resolveTool } from '../access/call-gate'
import type { ActivityRecorder, ReadRecord, Who } from '../activity/recorder'
import { callTool, type InClient } from './call-tool'
import { ASK_KEY, ASK_SCHEMA, answerOf, askMessage, isAskState, type InClientState } from './in-client'
import { ACCESS_CLIENT_WAIT_MS, ACCESS_KEY, accessAnswerOf, accessMessage, accessSchema } from './in-client-access'
import { requestAccessTool, type AccessInClient } from './request-access'
import { retrieveForAgent } from './retrieve-tool'
import type { Scope } from '../access/scope'
import { agentToolNames, agentTools } from './tool-defs'
import { upstreamServersOp, type ServerOpsDeps } from './server-ops'
import { sessionRecorder, type LearnedStore } from '../search/learned-store'
import type { AccessRequests } from '../requests/access'
import type { GrantKeeper } from '../grants/keeper'
import { ApiError } from '../../../shared/api'
import type { CallConfirmations } from '../requests/confirmations'
import type { UserQuestions } from '../requests/questions'
import { completePromptArgument, registerPromptHandlers } from './prompts'
import { completeTemplateArgument, registerResourceHandlers } from './resources'
import { registerSubscribeHandlers } from './resource-subscribe'
import { directListViews, directTools, resolveDirect } from './direct-view'
import { directResourceUri } from './direct-resources'
import { type ListChangedHub, type ListKind } from './list-changed'
import { isRelayState, sessionAsker, type RelayCalls } from './relay-asks'
import { relayLogs } from './log-relay'
import { withRequestLogs } from './request-logs'
import { ClosingServer } from './closing-server'
import type { UpstreamAsks } from './call-tool'

/** What tools/list offers: Toolgate's own tools (meta), or those and every callable upstream tool (direct). */
export type AgentView = 'meta' | 'direct'

export interface AgentDeps extends ServerOpsDeps {
  catalog: Catalog
  manager: UpstreamManager
  stats: DiscoveryStats
  logger: Logger
  /** learning from use: a call is remembered with the session's last search (search.learn) */
  learned?: LearnedStore
  /** request_access and "Allow once" passes (requests/index.ts) */
  requests?: AccessRequests
  keeper?: GrantKeeper
  activity?: ActivityRecorder
  /** calls that wait for the user's OK (requests/confirmations.ts) */
  confirmations?: CallConfirmations
  /** upstream questions Toolgate asks the user itself when the agent's client cannot (requests/questions.ts) */
  questions?: UserQuestions
  /** signs the requestState of questions asked in a 2026-07-28 client (in-client.ts); keyed from the instance key */
  askCodec?: RequestStateCodec<InClientState>
  /** the config edit that could not be applied (the last good config runs), else null: retrieve_tools says so */
  configProblem?: () => string | null
  /** list_changed for agents whose view changed (list-changed.ts) */
  listChanged?: ListChangedHub
  /** 2026-07-28 calls whose upstream asked the agent something, waiting for its retry (relay-asks.ts) */
  relays?: RelayCalls
}

/** Sends notifications/<kind>/list_changed on this server's connection (a 2025 session, or a pinned stdio connection). */
export function sendListChanged(server: Server, kind: ListKind): void {
  const sent = kind === 'tools' ? server.sendToolListChanged() : kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged()
  void sent.catch(() => {})
}

/**
 * A 2025 session hears list_changed once it is initialized, until it closes (a 2026-07-28
 * instance serves one request and never initializes: its listen streams are served elsewhere).
 */
function watchLists(server: Server, deps: AgentDeps, scope: Scope, view: AgentView): void {
  const hub = deps.listChanged
  if (!hub) return
  let stop: (() => void) | null = null
  server.oninitialized = () => {
    stop ??= hub.watch({ scope, send: (kind) => sendListChanged(server, kind), ...(view === 'direct' ? { views: directListViews(deps.catalog, scope) } : {}) })
  }
  const previous = server.onclose
  server.onclose = () => {
    previous?.()
    stop?.()
    stop = null
  }
}

/**
 * tools/list is the same for every request with the same credential (it depends on the agent's
 * scope only): clients of 2026-07-28 may cache it, never across credentials. A minute keeps a
 * config change (an agent's scope) visible soon; calls are checked at call time regardless.
 */
export const TOOLS_LIST_TTL_MS = 60_000

/** Built once: a zod schema compiles itself on its first parse, so one made per call cost that every call. */
const DescribeArgsSchema = z.object({ name: z.string() }, { error: 'arguments must be {"name": "server:tool"}' })

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] }
}

function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] }
}

/** A form elicitation the client declared (an empty elicitation capability means form, MCP 2025-06-18). */
function showsForms(caps: ClientCapabilities | undefined): boolean {
  const el = caps?.elicitation as { form?: unknown; url?: unknown } | undefined
  return el !== undefined && el !== null && (el.form !== undefined || el.url === undefined)
}

/**
 * Asking in this client (ask_in_client): only for an agent that has it and a client that shows
 * forms; 2026-07-28 by input_required (the retry's verified state and answer), 2025 by
 * elicitation/create raced against the window.
 */
function inClientFor(deps: AgentDeps, scope: Scope, server: Server, ctx: ServerContext, principal: string): InClient | undefined {
  if (!deps.askCodec) return undefined
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  if (!scope.askInClient()) {
    // the switch went off while a 2026-07-28 question was out: its retry waits for the window's
    // answer to that same confirmation (the client's answer no longer counts), not a second card
    const state: unknown = typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string' ? ctx.mcpReq.requestState() : undefined
    return isAskState(state) ? { modern: { principal, codec: deps.askCodec, state, answer: null, windowOnly: true } } : undefined
  }
  if (typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string') {
    if (!showsForms(envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)) return undefined
    const state: unknown = ctx.mcpReq.requestState()
    return {
      modern: { principal, codec: deps.askCodec, ...(isAskState(state) ? { state } : {}), answer: answerOf(ctx.mcpReq.inputResponses?.[ASK_KEY]) },
    }
  }
  if (!showsForms(server.getClientCapabilities())) return undefined
  return {
    clientAsk: async (c, signal) => {
      try {
        const timeout = Math.max(1000, Date.parse(c.expires_at) - Date.now())
        // on the call's own stream (relatedRequestId): it reaches a client that never opened the
        // session's GET stream too, and it is withdrawn on the stream it came on
        const asked = { signal, timeout, relatedRequestId: ctx.mcpReq.id }
        return answerOf(await ctx.mcpReq.elicitInput({ mode: 'form', message: askMessage(c), requestedSchema: ASK_SCHEMA }, asked))
      } catch {
        return null // withdrawn, dismissed, or the client could not show it: the window still can
      }
    },
  }
}

/**
 * request_access asked in this client too (ask_in_client), under the same conditions as a
 * confirmation: 2026-07-28 by input_required (the retry's verified state and the person's answer),
 * 2025 by elicitation/create raced against the window.
 */
function accessInClientFor(deps: AgentDeps, scope: Scope, server: Server, ctx: ServerContext, principal: string): AccessInClient | undefined {
  if (!scope.askInClient() || !deps.askCodec) return undefined
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  if (typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string') {
    if (!showsForms(envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)) return undefined
    const state: unknown = ctx.mcpReq.requestState()
    return { modern: { principal, codec: deps.askCodec, ...(state !== undefined ? { state } : {}), response: ctx.mcpReq.inputResponses?.[ACCESS_KEY] } }
  }
  if (!showsForms(server.getClientCapabilities())) return undefined
  return {
    ask: async (req, answers, signal) => {
      try {
        const asked = { signal, timeout: ACCESS_CLIENT_WAIT_MS, relatedRequestId: ctx.mcpReq.id }
        return accessAnswerOf(
          await ctx.mcpReq.elicitInput({ mode: 'form', message: accessMessage(req), requestedSchema: accessSchema(answers) }, asked),
          answers,
        )
      } catch {
        return null // withdrawn, dismissed, or the client could not show it: the window still can
      }
    },
  }
}

/**
 * Who the upstream's questions reach during this call (relay-asks.ts): a 2025 session's client
 * on the call's stream; a 2026-07-28 agent by input_required (needs the signed requestState).
 */
function upstreamAsks(deps: AgentDeps, server: Server, ctx: ServerContext, owner: string, principal: string, agent: string | null): UpstreamAsks {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const client = clientName(server, ctx)
  if (typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string') {
    const relays = deps.relays
    if (!relays) return {}
    const caps = envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined
    return { relay: (tool) => relays.open(principal, agent, tool, caps, client) }
  }
  return { asker: sessionAsker(owner, () => server.getClientCapabilities(), client, ctx) }
}

/** The client's name: from initialize (2025) or from this request's envelope (2026-07-28). */
function clientName(server: Server, ctx: ServerContext): string | null {
  const info = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined
  const name = typeof info?.name === 'string' ? info.name : server.getClientVersion()?.name
  return typeof name === 'string' ? name : null
}

/**
 * `principal`: the credential this server answers (HTTP: the admin key as an agent, or one agent
 * token; stdio: the process): a question asked in the client is bound to it.
 */
export function createAgentServer(deps: AgentDeps, scope: Scope, principal = 'local', view: AgentView = 'meta'): Server {
  const server = new ClosingServer(
    { name: 'toolgate', version: VERSION },
    {
      // list_changed: sent when the agent's own view changed (list-changed.ts)
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        // upstream log messages, for a 2025 session that sets a level (log-relay.ts)
        logging: {},
      },
      // scoped to the credential: a 2026-07-28 client may keep it, but only for this credential
      // (the direct view lists upstream tools, which change with every approval, lock and list: not to be kept)
      cacheHints: { 'tools/list': { ttlMs: view === 'direct' ? 0 : TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
      // a requestState that Toolgate did not sign, or that expired, never reaches a handler (-32602)
      ...(deps.askCodec ? { requestState: { verify: deps.askCodec.verify } } : {}),
    },
  )
  const recorder = deps.learned ? sessionRecorder(deps.learned) : null
  /** this session (2025) as the owner of its calls: an upstream's question reaches no other session */
  const owner = `session:${randomUUID()}`
  // The scope is live: an agent narrowed or removed in the config is refused from its next request.
  const gone = (): string => `agent "${scope.agent}" is no longer configured in Toolgate; ask the user (or operator) to add it back to "agents" in the config.`

  // the direct view also takes a prompt's and a resource's own name on its server, where one server in reach has it
  const direct = view === 'direct'
  const resolveUri = direct ? (uri: string, signal?: AbortSignal) => directResourceUri(deps, scope, uri, signal) : undefined
  // every prompts/get and resources/read is on the record, as every call is
  const activity = deps.activity
  const recordRead = activity
    ? (ctx: ServerContext, r: ReadRecord): void => activity.read({ agent: scope.agent, client: clientName(server, ctx) }, r)
    : undefined
  registerPromptHandlers(server, deps, scope, gone, direct, recordRead)
  registerResourceHandlers(server, deps, scope, gone, resolveUri, recordRead)
  registerSubscribeHandlers(server, deps, scope, gone, resolveUri)
  watchLists(server, deps, scope, view)
  // a test's stand-in manager may have no log hub
  if (deps.manager.logs) relayLogs(server, deps.catalog, deps.manager.logs, scope, gone)
  server.setRequestHandler('completion/complete', async (req, ctx) => {
    if (!scope.active()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, gone())
    const { ref } = req.params
    return withRequestLogs(ctx, scope, deps.catalog, deps.manager.logs, async (owner) => {
      if (ref.type === 'ref/prompt') return (await completePromptArgument(deps, scope, { ...req.params, ref }, ctx.mcpReq.signal, owner, direct)) as never
      return (await completeTemplateArgument(deps, scope, { ...req.params, ref }, ctx.mcpReq.signal, owner)) as never
    })
  })

  server.setRequestHandler('tools/list', async () => {
    if (!scope.active()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, gone())
    return { tools: view === 'direct' ? [...agentTools(scope), ...directTools(deps.catalog, scope)] : [...agentTools(scope)] }
  })

  server.setRequestHandler('tools/call', async (req, ctx): Promise<CallToolResult | InputRequiredResult> => {
    let { name } = req.params
    let args: unknown = req.params.arguments ?? {}
    // the direct view: an upstream tool by its own name becomes the call_tool_* call of it (same gate, confirmation, activity)
    if (view === 'direct' && scope.active() && !agentToolNames(scope).has(name)) {
      const direct = resolveDirect(deps.catalog, scope, name)
      if ('error' in direct) return errorResult(direct.error)
      if (!scope.allows(direct.entry)) {
        const gate = resolveTool(deps.catalog, scope, direct.entry.id)
        return errorResult(gate.ok ? `${direct.entry.id} is not in scope for agent "${scope.agent}".` : gate.message)
      }
      args = { name: direct.entry.id, args }
      name = `call_tool_${direct.entry.variant}`
    }
    // the agent of this session and the client name it gave (initialize, or this request's envelope)
    const who = (): Who => ({ agent: scope.agent, client: clientName(server, ctx) })
    const extra = ctx.mcpReq
    if (!scope.active()) return errorResult(gone())
    const offered = agentToolNames(scope)
    try {
      if (!offered.has(name)) {
        return errorResult(
          `unknown tool "${name}"; Toolgate offers ${[...offered].join(', ')}. Use retrieve_tools to find upstream tools, then call them through call_tool_*.`,
        )
      }
      if (name === 'retrieve_tools') {
        const parsed = RetrieveArgsSchema.safeParse(args)
        if (!parsed.success) return errorResult(`retrieve_tools: ${parsed.error.issues[0].message}`)
        recorder?.searched(deps.catalog.index.queryTerms(parsed.data.query))
        return textResult(await retrieveForAgent(deps, parsed.data, scope, who()))
      }
      if (name === 'describe_tool') {
        const parsed = DescribeArgsSchema.safeParse(args)
        if (!parsed.success) return errorResult(`describe_tool: ${parsed.error.issues[0].message}`)
        const gate = resolveTool(deps.catalog, scope, parsed.data.name)
        if (!gate.ok) return errorResult(gate.message)
        const e = gate.entry
        return textResult(
          JSON.stringify({
            name: e.id,
            server: e.server,
            ...(e.def.title ? { title: e.def.title } : {}),
            description: e.def.description,
            inputSchema: e.def.inputSchema,
            ...(e.def.outputSchema ? { outputSchema: e.def.outputSchema } : {}),
            ...(e.def.annotations ? { annotations: e.def.annotations } : {}),
            ...(e.annotationsMissing ? { annotations_missing: true } : {}),
            call_with: callWith(e.variant),
          }),
        )
      }
      if (name === 'upstream_servers') return await upstreamServersOp(deps, scope, args, who())
      if (name === 'request_access') {
        if (!deps.requests) return errorResult('request_access is not available in this Toolgate.')
        return await requestAccessTool(deps.requests, who(), scope, args, extra.signal, accessInClientFor(deps, scope, server, ctx, principal))
      }
      // The agent asked for progress (a progressToken in _meta): relay the upstream's
      // notifications/progress under the agent's own token, on this request's stream.
      // The result waits for those sends: over HTTP the stream ends with the result.
      const token = extra._meta?.progressToken
      const sending: Array<Promise<void>> = []
      const onProgress =
        token === undefined
          ? undefined
          : (p: Progress): void => {
              sending.push(extra.notify({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(() => {}))
            }
      try {
        // the retry of a 2026-07-28 call whose upstream asked: the answers go on to the waiting call
        const state: unknown = ctx.mcpReq.requestState()
        if (isRelayState(state) && deps.relays) {
          const tool = typeof (args as { name?: unknown }).name === 'string' ? (args as { name: string }).name : ''
          return await deps.relays.resume(state, principal, scope.agent, tool, ctx.mcpReq.inputResponses)
        }
        const inClient = inClientFor(deps, scope, server, ctx, principal)
        const asks = upstreamAsks(deps, server, ctx, owner, principal, scope.agent)
        // a 2026-07-28 request that asked for log messages hears those of the server it calls (request-logs.ts)
        return await withRequestLogs(ctx, scope, deps.catalog, deps.manager.logs, (owner) =>
          callTool(deps, scope, who(), name, args, extra.signal, (id) => recorder?.called(id), onProgress, inClient, asks, owner),
        )
      } finally {
        await Promise.all(sending)
      }
    } catch (e) {
      deps.logger.warn({ tool: name, err: (e as Error).message }, 'agent call failed')
      return errorResult((e as Error).message)
    }
  })
  return server
}
