// Prompts for agents (docs/passthrough.md): prompts/list offers the callable prompts of the servers
// in the agent's scope as `<server>__<prompt>` with their approved definitions; prompts/get
// relays to the server under the prompt's own name and answers with the approved description.
// A prompt that needs no argument is checked again when it is read: the messages the server
// answers must be the ones the user approved (their hash is part of the approval), else the agent
// gets an error, nothing of the new text, and the server's prompts are listed again (the change
// then waits for the user). completion/complete relays for a prompt's arguments.
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server'
import type { Catalog } from '../catalog/catalog'
import type { PromptEntry } from '../catalog/prompts'
import { messagesDigest } from '../upstream/prompts'
import { UpstreamCallError } from '../upstream/types'
import type { UpstreamManager } from '../upstream/manager'
import type { Logger } from '../log'
import type { Scope } from '../access/scope'
import { decidePrompt, promptEntryAccess } from '../access/decide'
import { agentMessages, blockSource } from './resource-links'
import { withServer } from './hold-server'
import { withRequestLogs } from './request-logs'
import type { LogOwner } from '../upstream/request-logs'
import { recordedRead, type RecordRead } from './read-records'
import { agentCompletion } from './completion-text'
import { MAX_RESOURCE_DESCRIPTION_CHARS, oneLine } from './resource-text'

export interface PromptDeps {
  catalog: Catalog
  manager: UpstreamManager
  logger: Logger
}

/** `_meta` key naming what Toolgate relays a name to ("server:prompt", "server:tool"; CONTRACT §8). */
export const TOOLGATE_ID_KEY = 'toolgate/id'

/** The prompts an agent may read: callable, on a server in its scope. */
export function agentPrompts(catalog: Catalog, scope: Scope): PromptEntry[] {
  const out: PromptEntry[] = []
  for (const s of catalog.currentConfig.servers) {
    for (const e of catalog.prompts.entries(s.name)) if (promptEntryAccess(scope, e).kind === 'callable') out.push(e)
  }
  return out
}

/**
 * An upstream's failure as the agent's protocol error: the server's own JSON-RPC error keeps its
 * code, and its message (the server's words) reaches the agent as listed text does, one escaped
 * line, cut (resource-text.ts oneLine): an error must not carry what a completion value or a
 * prompt's unapproved text may not.
 */
export function relayError(e: unknown): ProtocolError {
  const text = oneLine(e instanceof Error ? e.message : String(e), MAX_RESOURCE_DESCRIPTION_CHARS)
  if (e instanceof UpstreamCallError && e.code === 'upstream_error' && e.rpcCode !== undefined) return new ProtocolError(e.rpcCode, text)
  return new ProtocolError(ProtocolErrorCode.InternalError, text)
}

/**
 * The direct view: a prompt named by its server's own name, when exactly one prompt the
 * agent may get has that name (a client that knows its server's prompts, as an App knows its
 * tools); its agent-visible name, or the name as it came (then unknown), else.
 */
function directPromptName(catalog: Catalog, scope: Scope, name: string): string {
  const inScope = (s: string): boolean => scope.allowsServer(s)
  if (catalog.prompts.byAgentName(name, inScope)) return name
  const matches = agentPrompts(catalog, scope).filter((e) => e.name === name)
  if (matches.length > 1)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `prompt name "${name}" is ambiguous: ${matches.map((e) => catalog.prompts.agentName(e.id, inScope) ?? e.id).join(', ')} have it; get one of these names.`,
    )
  return matches.length === 1 ? (catalog.prompts.agentName(matches[0].id, inScope) ?? name) : name
}

/** The prompt an agent named, if it may read it; else a protocol error that says why (nothing about a prompt out of its scope). */
function gatePrompt(catalog: Catalog, scope: Scope, asked: string, direct: boolean): PromptEntry {
  const name = direct ? directPromptName(catalog, scope, asked) : asked
  const a = decidePrompt(catalog, scope, name)
  if (a.kind === 'unknown' || a.kind === 'out_of_scope') {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt "${name}"; prompts/list names the prompts you can get.`)
  }
  if (a.kind === 'blocked') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the prompt "${name}" is not available (${a.status}): ${a.status === 'pending_approval' ? 'it is new or changed and waits for the user to review it' : 'it is locked'}; ask the user to check it in the Toolgate window.`,
    )
  }
  return a.entry
}

/**
 * The prompt gated again once its (held) server's prompts of this run are listed: a server started
 * for this request may have changed the prompt while it was stopped, which only its listing shows
 * (a prompt read with arguments cannot be compared with the approved text). A listing that does
 * not come is refused, not waved through.
 */
async function gateListed(deps: PromptDeps, scope: Scope, asked: string, direct: boolean, e: PromptEntry, signal: AbortSignal): Promise<PromptEntry> {
  const up = upstreamOf(deps.manager, e.server)
  if (!(await up.promptsListed(deps.catalog.currentConfig.call_timeout_ms, signal))) {
    up.relistPrompts()
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `the prompts of server "${e.server}" could not be listed since it started, so "${asked}" cannot be checked; retry in a moment, or ask the user to check the server in the Toolgate window.`,
    )
  }
  return gatePrompt(deps.catalog, scope, asked, direct)
}

function upstreamOf(manager: UpstreamManager, server: string): NonNullable<ReturnType<UpstreamManager['get']>> {
  const up = manager.get(server)
  if (!up) throw new ProtocolError(ProtocolErrorCode.InternalError, `server "${server}" is not running; ask the user to check it in the Toolgate window.`)
  return up
}

/** `direct`: the direct view, where a prompt may also be named by its server's own name (directPromptName); `record`: each prompts/get's activity record. */
export function registerPromptHandlers(server: Server, deps: PromptDeps, scope: Scope, gone: () => string, direct = false, record?: RecordRead): void {
  const { catalog, manager } = deps
  const active = (): void => {
    if (!scope.active()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, gone())
  }

  server.setRequestHandler('prompts/list', async () => {
    active()
    const inScope = (s: string): boolean => scope.allowsServer(s)
    return {
      prompts: agentPrompts(catalog, scope).map((e) => ({
        name: catalog.prompts.agentName(e.id, inScope) ?? e.id,
        ...(e.def.title ? { title: e.def.title } : {}),
        description: e.def.description,
        arguments: e.def.arguments.map((a) => ({ ...a })),
        _meta: { [TOOLGATE_ID_KEY]: e.id },
      })),
    }
  })

  server.setRequestHandler('prompts/get', async (req, ctx) =>
    recordedRead(record, ctx, 'prompt', req.params.name, async (note) => {
      // the server of a prompt the agent can name, for the record even when the gate refuses it
      note.server = catalog.prompts.byAgentName(req.params.name, (s) => scope.allowsServer(s))?.server ?? null
      active()
      const e = gatePrompt(catalog, scope, req.params.name, direct)
      note.server = e.server
      const signal = ctx.mcpReq.signal
      return withRequestLogs(ctx, scope, catalog, manager.logs, (owner) =>
        withServer(manager, e.server, scope, 'prompt', signal, async () => {
          const listed = await gateListed(deps, scope, req.params.name, direct, e, signal)
          note.passed = true
          return getPrompt(deps, listed, req.params.arguments ?? {}, signal, req.params.name, owner)
        }),
      )
    }),
  )
}

/**
 * prompts/get relayed to the (held) server, its answer checked against the approved text. A text
 * filled in with arguments cannot be compared with the approved no-argument text, so a request
 * with arguments of a prompt that has one reads that no-argument text first: a quiet change
 * (a rug pull) shows there, and nothing is relayed.
 */
async function getPrompt(
  deps: PromptDeps,
  e: PromptEntry,
  args: Record<string, string>,
  signal: AbortSignal,
  asked: string,
  owner: LogOwner,
): Promise<{ description: string; messages: never }> {
  const up = upstreamOf(deps.manager, e.server)
  const get = async (a: Record<string, string>): Promise<unknown[]> => {
    let result: Record<string, unknown>
    try {
      result = await up.relay(
        'prompts/get',
        { name: e.name, arguments: a },
        { timeoutMs: deps.catalog.currentConfig.call_timeout_ms, signal, label: e.id, owner },
      )
    } catch (err) {
      throw relayError(err)
    }
    return Array.isArray(result.messages) ? result.messages : []
  }
  const approved = e.def.messages_hash
  const withArgs = Object.keys(args).length > 0
  // the text the user approved is the text an agent gets
  const plain = approved === undefined ? null : withArgs ? await get({}) : null
  const messages = await get(args)
  const checked = plain ?? (withArgs ? null : messages)
  if (approved !== undefined && checked !== null && messagesDigest(checked).messages_hash !== approved) {
    deps.logger.warn(
      { server: e.server, prompt: e.name },
      'a prompt answered other text than the approved one; it was not relayed, and the prompts are listed again',
    )
    up.relistPrompts()
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `the prompt "${asked}" changed since the user approved it; it is not relayed until the user reviews the change in the Toolgate window.`,
    )
  }
  return { description: e.def.description, messages: agentMessages(blockSource(e.server, deps.catalog.serverConfig(e.server)), messages) as never }
}

/** completion/complete for a prompt's argument: relayed to its server under the prompt's own name. */
export async function completePromptArgument(
  deps: PromptDeps,
  scope: Scope,
  params: { ref: { name: string }; argument: unknown; context?: unknown },
  signal: AbortSignal,
  owner: LogOwner,
  direct = false,
): Promise<Record<string, unknown>> {
  const first = gatePrompt(deps.catalog, scope, params.ref.name, direct)
  return withServer(deps.manager, first.server, scope, 'prompt', signal, async () => {
    const e = await gateListed(deps, scope, params.ref.name, direct, first, signal)
    const up = upstreamOf(deps.manager, e.server)
    if (!up.capabilities?.completions) return { completion: { values: [], total: 0, hasMore: false } }
    try {
      const result = await up.relay(
        'completion/complete',
        { ...params, ref: { type: 'ref/prompt', name: e.name } },
        { timeoutMs: deps.catalog.currentConfig.call_timeout_ms, signal, label: e.id, owner },
      )
      // the values as an agent reads listed text: one escaped line each, at most 100 (completion-text.ts)
      return agentCompletion(result)
    } catch (err) {
      throw relayError(err)
    }
  })
}
