// Requests of an upstream server to its client (docs/passthrough.md): elicitation and sampling reach
// the agent whose call they belong to, labelled with the server and with the server's secrets
// masked; roots are answered by Toolgate itself (the operator's `roots`, else the sandbox's grants). The guards live here, one place for both eras:
// - only while a call of an agent to this server is in flight, and only that agent (a 2025 server
//   sends its request on the connection without naming the call: when calls of more than one
//   agent are in flight, Toolgate cannot tell whose it is and asks nobody: by design, neither
//   guessed nor held until one caller is left, docs/passthrough.md says why);
// - the server's switches (config `elicitation`, `sampling`: sampling is off unless allowed);
// - at most MAX_OPEN_ASKS open at once per server and MAX_ASKS_PER_CALL per call (a flood is refused);
// - the text is escaped (no control, bidi or invisible characters), cut to a readable length, and
//   says it comes from the server, never from Toolgate; a form's values stay as sent (ask-schema.ts);
//   a URL question's URL is checked like one Toolgate shows (http(s), at most 4,096 characters, no
//   user name or password) and relayed in its normalized form;
//   sampling never asks the client to add context of other servers.
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import { checkQuestionUrl } from '../../../shared/questions'
import { escapeControls, escapeText } from '../../../shared/text'
import { cleanMessage, cleanRequestedSchema, type Clean } from './ask-schema'
import type { CallClock } from './call-clock'

export type AskMethod = 'elicitation/create' | 'sampling/createMessage'

/** What the connection tells the asker besides the labelled request: who asks, the request unlabelled, and the user's switch. */
export interface AskAbout {
  /** the configured name of the server that asks (from the config, never from the server) */
  server: string
  /** the request made safe (masked, escaped) without the label: what the Toolgate window shows under its own label */
  plain: Record<string, unknown>
  /** `sampling: "ask"`: the user allows each request before it reaches the agent's client */
  confirmFirst: boolean
}

/** The agent behind one call: asks its client (2025: a request on its session; 2026-07-28: input_required on its call). */
export interface CallAsker {
  /** the agent's session or credential: two calls with one owner belong to the same agent */
  readonly owner: string
  /** whether the agent's client takes this request (it declared the capability) */
  takes(method: AskMethod, params: Record<string, unknown>): boolean
  /** relays the (labelled) request; rejects with a clear error when the agent's client cannot take it */
  ask(method: AskMethod, params: Record<string, unknown>, signal: AbortSignal, about?: AskAbout): Promise<Record<string, unknown>>
}

/** Questions of one server open at once (a person answers them one by one). */
export const MAX_OPEN_ASKS = 2
/** Questions one call may ask in all. */
export const MAX_ASKS_PER_CALL = 10

const refuse = (message: string): ProtocolError => new ProtocolError(ProtocolErrorCode.InvalidRequest, message)

/** Whether the server may ask: elicitation unless switched off, sampling only when allowed or asked about (`ask`: the user sees each request first). */
export function allows(config: ServerConfig, method: AskMethod): boolean {
  return method === 'elicitation/create' ? config.elicitation !== 'off' : config.sampling === 'allow' || config.sampling === 'ask'
}

const WHAT: Record<AskMethod, string> = { 'elicitation/create': 'elicitation (questions to the user)', 'sampling/createMessage': "sampling (the user's model)" }
const SWITCH: Record<AskMethod, string> = {
  'elicitation/create': '"elicitation": "relay" (it is "off")',
  'sampling/createMessage': '"sampling": "ask" (you allow each request) or "allow" (it is off by default: it spends the user\'s model)',
}

/** The refusal of a request the server's switch forbids. */
export function switchedOff(server: string, method: AskMethod): ProtocolError {
  return refuse(
    `Toolgate does not relay ${WHAT[method]} for server "${server}": the user has not allowed it. To allow it, set ${SWITCH[method]} for this server.`,
  )
}

/**
 * The roots a server is told (CONTRACT §8): the operator's `roots`, else the folders its sandbox
 * grants (`sandbox.fs_read`, `sandbox.fs_write`, and `cwd`), which it can reach anyway; none for a
 * server that has no sandbox (HTTP, `sandbox: false`) or no grant. Never the user's whole disk,
 * never an agent's own roots. Toolgate offers roots only where this list is not empty.
 */
export function rootsFor(config: ServerConfig, home = os.homedir()): Array<{ uri: string; name: string }> {
  const expand = (p: string): string => (p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p)
  const sandboxed = config.command !== undefined && config.sandbox !== false
  const grants = typeof config.sandbox === 'object' ? [...(config.sandbox.fs_read ?? []), ...(config.sandbox.fs_write ?? [])] : []
  const paths = config.roots ?? (sandboxed ? [...grants, ...(config.cwd && grants.length > 0 ? [config.cwd] : [])] : [])
  const seen = new Set<string>()
  const out: Array<{ uri: string; name: string }> = []
  for (const p of paths) {
    const abs = path.resolve(expand(p))
    if (seen.has(abs)) continue
    seen.add(abs)
    out.push({ uri: pathToFileURL(abs).href, name: path.basename(abs) || abs })
  }
  return out
}

function cleaner(mask: (s: string) => string): Clean {
  return (s, oneLine = false) => (oneLine ? escapeControls(mask(s)) : escapeText(mask(s)))
}

/** Every string of a sampling request, masked and escaped (the structure stays as the server sent it). */
function cleanAll(v: unknown, clean: Clean): unknown {
  if (typeof v === 'string') return clean(v, true)
  if (Array.isArray(v)) return v.map((x) => cleanAll(x, clean))
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cleanAll(x, clean)]))
  return v
}

/** The sentence every relayed question starts with: which server asks, and that Toolgate does not. */
export function fromServerLabel(server: string): string {
  return `[From the MCP server "${server}", relayed by Toolgate; not a question of Toolgate's]`
}

/**
 * The request as the agent's client gets it (`label`: the server's text marked as the server's)
 * or as the Toolgate window shows it under its own label (`label` false): the server's text masked
 * and escaped; sampling without context of other servers and without tools.
 */
export function labelRequest(
  server: string,
  method: AskMethod,
  params: Record<string, unknown>,
  mask: (s: string) => string,
  label = true,
): Record<string, unknown> {
  const clean = cleaner(mask)
  const str = (v: unknown): string => (typeof v === 'string' ? v : '')
  const meta = { 'toolgate/server': server }
  const tag = label ? `${fromServerLabel(server)} ` : ''
  if (method === 'elicitation/create') {
    const message = `${tag}${cleanMessage(str(params.message), clean)}`
    if (params.mode === 'url') {
      // the same URL checks as a question Toolgate shows (scheme, length, no user name or password),
      // on what the server sent and on what the user would see; relayed in its normalized form
      const checked = checkQuestionUrl(str(params.url))
      const shown = 'error' in checked ? checked : checkQuestionUrl(mask(str(params.url)))
      if ('error' in shown) throw refuse(`Toolgate does not show or relay this elicitation of server "${server}": ${shown.error}; nobody was asked.`)
      return {
        mode: 'url',
        message,
        url: shown.href,
        ...(typeof params.elicitationId === 'string' ? { elicitationId: params.elicitationId } : {}),
        _meta: meta,
      }
    }
    return { mode: 'form', message, requestedSchema: cleanRequestedSchema(server, params.requestedSchema, clean, mask), _meta: meta }
  }
  // sampling: the messages go to the user's model as the server wrote them (masked); no tools, no
  // context of other servers, and a system prompt that says whose request it is
  const { tools, toolChoice, includeContext, _meta, systemPrompt, ...rest } = params
  void tools
  void toolChoice
  void includeContext
  void _meta
  const said = typeof systemPrompt === 'string' && systemPrompt ? clean(systemPrompt) : ''
  if (!label) {
    // for the user's eyes: every string escaped too
    const shown = cleanAll(rest, clean) as Record<string, unknown>
    return { ...shown, ...(said ? { systemPrompt: said } : {}) }
  }
  const cleaned = cleanAll(rest, (s) => mask(s)) as Record<string, unknown>
  return { ...cleaned, includeContext: 'none', systemPrompt: `${fromServerLabel(server)}${said ? ` ${said}` : ''}`, _meta: meta }
}

/**
 * The calls in flight on one connection and who made them. `owner` decides a 2025 server's request
 * (it names no call): exactly one agent with calls in flight, or nobody.
 */
export class CallsInFlight {
  /** `ended`: made when the call's first question is relayed (most calls ask nothing: no controller, no abort to send) */
  private readonly calls = new Map<number, { asker: CallAsker | null; asked: number; ended: AbortController | null; clock: CallClock | null }>()
  private seq = 0
  private open = 0

  constructor(private readonly server: string) {}

  /** A call starts (`clock`: its timeout, which stands still while a question of it is open); the returned function ends it. */
  begin(asker: CallAsker | null, clock: CallClock | null = null): { id: number; end(): void } {
    const id = ++this.seq
    const call = { asker, asked: 0, ended: null as AbortController | null, clock }
    this.calls.set(id, call)
    return {
      id,
      end: () => {
        // a question still open for this call (the user's, or its agent's) is withdrawn
        call.ended?.abort(new Error('the call ended'))
        this.calls.delete(id)
      },
    }
  }

  /** The call a 2025 server's request belongs to: the only agent with calls in flight, else a refusal. */
  forUnnamed(method: AskMethod): number {
    const owners = new Map<string, number>()
    for (const [id, c] of this.calls) owners.set(c.asker?.owner ?? `none:${id}`, id)
    if (owners.size === 0) {
      throw refuse(`Toolgate relays ${method} only while an agent's call to server "${this.server}" waits for it; no call is in flight, so nobody was asked.`)
    }
    if (owners.size > 1) {
      throw refuse(
        `calls of ${owners.size} different callers to server "${this.server}" are in flight and this ${method} does not say which one it belongs to; Toolgate asks none of them. Ask during a call while it is the only one.`,
      )
    }
    return [...owners.values()][0]
  }

  /** Relays a request of call `id` to its agent, within the limits. */
  async ask(id: number, method: AskMethod, params: Record<string, unknown>, signal: AbortSignal, about?: AskAbout): Promise<Record<string, unknown>> {
    const call = this.calls.get(id)
    if (!call) throw refuse(`the call this ${method} belongs to has ended; nobody was asked.`)
    if (!call.asker) throw refuse(`the caller of this call to server "${this.server}" cannot be asked (it is not an agent's MCP session); nobody was asked.`)
    if (call.asked >= MAX_ASKS_PER_CALL)
      throw refuse(`server "${this.server}" asked more than ${MAX_ASKS_PER_CALL} times in one call; Toolgate refuses the rest.`)
    if (this.open >= MAX_OPEN_ASKS)
      throw refuse(`server "${this.server}" already has ${MAX_OPEN_ASKS} questions open; Toolgate refuses more until they are answered.`)
    call.asked++
    this.open++
    // a person answers: the call's timeout waits meanwhile (call-clock.ts), the question's own timeout bounds it
    const resume = call.clock?.pause()
    try {
      call.ended ??= new AbortController()
      return await call.asker.ask(method, params, AbortSignal.any([signal, call.ended.signal]), about)
    } finally {
      this.open--
      resume?.()
    }
  }
}
