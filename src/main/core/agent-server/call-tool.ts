// call_tool_read / call_tool_write / call_tool_destructive: argument check, the one gate
// (scope → status → variant; an "Allow once" pass), the user's OK when the call needs one
// (confirm-gate.ts), the upstream call with the configured timeout, and one activity record per
// call with its outcome, duration and result size.
import type { CallToolResult, InputRequiredResult, Progress, RequestStateCodec } from '@modelcontextprotocol/server'
import { z } from 'zod'
import type { Variant } from '../../../shared/call-variant'
import { parseToolId } from '../../../shared/ids'
import { signInMessage } from '../../../shared/statuses'
import { ONCE_STATUSES } from '../../../shared/requests'
import type { CallOutcome } from '../../../shared/activity'
import type { Catalog } from '../catalog/catalog'
import type { DiscoveryStats } from '../discovery/stats'
import type { Lease, UpstreamManager } from '../upstream/manager'
import type { Logger } from '../log'
import { UpstreamCallError } from '../upstream/types'
import { RESULT_BYTES } from '../upstream/calls'
import type { ActivityRecorder, CallBasics, CallDraft, CallRecord, Who } from '../activity/recorder'
import { checkVariant, gateResult } from '../access/call-gate'
import { decideAccess } from '../access/decide'
import type { GrantKeeper } from '../grants/keeper'
import { takeOncePass } from './once-pass'
import type { CallConfirmations, ClientAsk, ConfirmResult } from '../requests/confirmations'
import { afterConfirm, confirmBeforeCall, type ConfirmGateResult } from '../requests/confirm-gate'
import { askResult, type AskState, type InClientState } from './in-client'
import type { Scope } from '../access/scope'
import { agentToolResult, blockSource } from './resource-links'
import { checkStructuredOutput } from './structured-output'
import type { CallAsker } from '../upstream/server-requests'
import type { RelayCall } from './relay-asks'
import type { UserQuestions } from '../requests/questions'
import { withUser } from './user-asks'
import type { LogOwner } from '../upstream/request-logs'

export interface CallDeps {
  catalog: Catalog
  manager: UpstreamManager
  stats: DiscoveryStats
  logger: Logger
  activity?: ActivityRecorder
  /** "Allow once" passes */
  keeper?: GrantKeeper
  /** calls that wait for the user's OK, and sampling requests of servers set to "ask" */
  confirmations?: CallConfirmations
  /** upstream questions that Toolgate asks the user itself (requests/questions.ts) */
  questions?: UserQuestions
}

/**
 * Asking in the agent's own client (in-client.ts), when its agent has ask_in_client and its client
 * shows questions: `clientAsk` for a 2025 session; `modern` for 2026-07-28 (the question goes back
 * in the answer; `state` and `answer` are the retry's verified requestState and the person's answer).
 */
export interface InClient {
  clientAsk?: ClientAsk
  modern?: {
    principal: string
    codec: RequestStateCodec<InClientState>
    state?: AskState
    answer: 'allow' | 'deny' | null
    /** the agent's switch is off now: the retry waits for the window's answer, the client's does not count */
    windowOnly?: boolean
  }
}

/**
 * Who the upstream's own questions (elicitation, sampling) reach during the call (relay-asks.ts):
 * a 2025 session's `asker`, or for a 2026-07-28 agent a RelayCall opened by `relay`.
 */
export interface UpstreamAsks {
  asker?: CallAsker
  relay?: (tool: string) => RelayCall
}

/** Records the call (once, with its outcome); `draft()` makes the outcome-free part ahead (ActivityRecorder.draftCall). */
interface RecordCall {
  (r: Pick<CallRecord, 'outcome'> & Partial<CallRecord>): void
  draft(): void
}

const CallArgsSchema = z.object(
  {
    name: z.string({ error: 'name is required: the "server:tool" id from retrieve_tools' }),
    args: z.record(z.string(), z.unknown(), { error: 'args must be an object of the tool\'s arguments, e.g. {"path": "/tmp"}' }).optional(),
  },
  { error: 'arguments must be an object like {"name": "server:tool", "args": {...}}' },
)

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] }
}

function outcomeOf(e: unknown): CallOutcome {
  if (e instanceof UpstreamCallError && (e.code === 'timeout' || e.code === 'cancelled')) return e.code
  return 'error'
}

/** The server is running and waits for the user to sign in (OAuth): no call can go through until then. */
function waitsForSignIn(manager: UpstreamManager, server: string): boolean {
  return manager.get(server)?.state === 'needs_auth'
}

/**
 * The server of the tool an agent calls, held for the call: a stopped on-demand server starts
 * and the call waits until it listed its tools, so the gate decides on what it lists
 * now (a rug pull while it was stopped is caught before the call); a server still starting is
 * waited for instead of answering "unknown tool". Null when there is nothing to hold (a bad id,
 * a server out of scope, off or quarantined: the gate answers those).
 */
async function holdServerOf(
  catalog: Catalog,
  manager: UpstreamManager,
  scope: Scope,
  id: string,
  variant: Variant,
  who: Who,
  signal: AbortSignal,
): Promise<Lease | { error: string } | null> {
  const ref = parseToolId(id)
  if ('error' in ref || !scope.allowsServer(ref.server)) return null
  // a call the gate refuses whatever the server lists now (a lock no pass lifts, the wrong variant) starts nothing
  const known = catalog.entry(id) // parseToolId accepted it: exactly "server:tool"
  if (known && known.status !== 'callable' && !ONCE_STATUSES.has(known.status as never)) return null
  if (known && known.status === 'callable' && checkVariant(known, variant)) return null
  const started = Date.now()
  const lease = await manager.acquire(ref.server, { reason: 'call', by: who, signal })
  if (!lease?.stillStarting) return lease
  lease.release()
  const waited = Math.max(1, Math.round((Date.now() - started) / 1000))
  return { error: `server "${ref.server}" is still starting (waited ${waited} s); retry in a few seconds.` }
}

/**
 * `onCallable`: told the tool id once the call passed the gate (learning from use remembers it).
 * `onProgress`: progress for the agent, when it asked for it: the upstream's notifications, and
 *   while the call waits for the user's OK, how long it may still wait.
 * `owner`: whose request it is, for the upstream's log messages during the call (withRequestLogs).
 */
export async function callTool(
  deps: CallDeps,
  scope: Scope,
  who: Who,
  tool: string,
  raw: unknown,
  signal: AbortSignal,
  onCallable?: (id: string) => void,
  onProgress?: (p: Progress) => void,
  inClient?: InClient,
  asks?: UpstreamAsks,
  owner?: LogOwner,
): Promise<CallToolResult | InputRequiredResult> {
  const started = performance.now()
  const variant = tool.slice('call_tool_'.length) as Variant
  const parsed = CallArgsSchema.safeParse(raw)
  const name = parsed.success ? parsed.data.name : typeof (raw as { name?: unknown })?.name === 'string' ? (raw as { name: string }).name : ''
  const args = parsed.success ? (parsed.data.args ?? {}) : (raw as { args?: unknown })?.args
  const ref = parseToolId(name)
  const serverName = 'error' in ref ? null : ref.server
  const basics = (): CallBasics => ({
    tool: name,
    serverName,
    server: serverName === null ? undefined : deps.catalog.serverConfig(serverName),
    mask: (t: string) => (serverName === null ? t : (deps.manager.get(serverName)?.mask.text(t) ?? t)),
    variant,
    args: args ?? {},
  })
  let draft: CallDraft | undefined
  const record: RecordCall = Object.assign(
    (r: Pick<CallRecord, 'outcome'> & Partial<CallRecord>): void => {
      const c = draft?.basics ?? basics()
      deps.activity?.call(who, { ...c, durationMs: performance.now() - started, ...r }, draft)
    },
    {
      draft: (): void => {
        if (deps.activity) draft ??= deps.activity.draftCall(basics())
      },
    },
  )
  const refuse = (r: Pick<CallRecord, 'outcome'> & Partial<CallRecord>, text: string): CallToolResult => {
    record({ ...r, error: text })
    return errorResult(text)
  }

  if (!parsed.success) return refuse({ outcome: 'error' }, `${tool}: ${parsed.error.issues[0].message}`)
  const held = await holdServerOf(deps.catalog, deps.manager, scope, parsed.data.name, variant, who, signal)
  if (held && 'error' in held) return refuse({ outcome: 'error' }, held.error)
  try {
    return await gatedCall(deps, scope, who, tool, variant, parsed.data, signal, refuse, record, onCallable, onProgress, inClient, asks, owner)
  } finally {
    held?.release()
  }
}

/** The gate, the user's OK and the upstream call, for a call whose server is held. */
async function gatedCall(
  deps: CallDeps,
  scope: Scope,
  who: Who,
  tool: string,
  variant: Variant,
  call: z.infer<typeof CallArgsSchema>,
  signal: AbortSignal,
  refuse: (r: Pick<CallRecord, 'outcome'> & Partial<CallRecord>, text: string) => CallToolResult,
  record: RecordCall,
  onCallable?: (id: string) => void,
  onProgress?: (p: Progress) => void,
  inClient?: InClient,
  asks?: UpstreamAsks,
  owner?: LogOwner,
): Promise<CallToolResult | InputRequiredResult> {
  const parsed = { data: call }
  const access = decideAccess(deps.catalog, scope, parsed.data.name)
  let gate = gateResult(access, scope)
  if (!gate.ok && gate.blocked) {
    // "Allow once": a pass the user gave this agent for exactly this tool, taken before the call starts
    const passed = takeOncePass(deps.keeper, scope, access, variant, (s) => deps.manager.get(s) !== undefined)
    if (passed) gate = { ok: true, entry: passed }
  }
  if (!gate.ok) {
    deps.stats.recordCall(gate.blocked)
    // a server waiting for sign-in has listed no tools: any name on it gets the sign-in sentence, not "unknown tool"
    if (gate.unknownTool && waitsForSignIn(deps.manager, gate.unknownTool.server)) return refuse({ outcome: 'error' }, signInMessage(gate.unknownTool.server))
    return refuse(gate.reason ? { outcome: 'blocked', status: gate.reason } : { outcome: 'error' }, gate.message)
  }
  const wrong = checkVariant(gate.entry, variant)
  if (wrong) {
    deps.stats.recordCall(false)
    return refuse({ outcome: 'blocked', status: 'wrong_variant' }, wrong)
  }
  deps.stats.recordCall(false)
  // no confirmation for a call that cannot go through
  if (waitsForSignIn(deps.manager, gate.entry.server)) return refuse({ outcome: 'error' }, signInMessage(gate.entry.server))
  onCallable?.(gate.entry.id)
  const notRunning = (server: string): string => `server "${server}" is not running; ask the user to check it in the Toolgate window.`
  if (!deps.manager.get(gate.entry.server)) return refuse({ outcome: 'error' }, notRunning(gate.entry.server))
  const callArgs = parsed.data.args ?? {}
  // the user's OK, bound to this very call (agent, tool, these arguments); the gate again after a wait
  let confirmed: ConfirmGateResult
  if (inClient?.modern && deps.confirmations) {
    const m = inClient.modern
    const c = deps.confirmations
    let r: ConfirmResult
    if (m.state) {
      // the retry of a call that asked: bound to this credential, this tool, these arguments, once
      const asked = c.queue.get(m.state.c)
      const bound =
        asked !== undefined && m.state.p === m.principal && m.state.t === gate.entry.id && asked.args_hmac === m.state.a && asked.agent === who.agent
      if (!bound)
        return refuse(
          { outcome: 'declined' },
          `CALL_DECLINED: the answer (requestState) does not belong to this call; nothing ran. Call the tool again to ask anew.`,
        )
      if (m.answer && !m.windowOnly) c.answerFromClient(m.state.c, m.answer)
      let taken = c.take(m.state.c, callArgs)
      // nobody answered yet (the question was dismissed): ask again, the same confirmation
      if (taken === 'pending' && !m.windowOnly) return askResult(m.codec, asked, m.principal, gate.entry.id)
      if (taken === 'pending') {
        // the switch is off now: this very confirmation waits for the window (it expires like any other)
        await c.queue.wait(m.state.c, Math.max(0, Date.parse(asked.expires_at) - Date.now()) + 5000, signal)
        taken = c.take(m.state.c, callArgs)
        if (taken === 'pending')
          return refuse({ outcome: 'cancelled' }, `CALL_DECLINED: the call of ${gate.entry.id} was cancelled before the user answered; it was not run.`)
      }
      r = taken
    } else {
      const opened = c.open(who, gate.entry, variant, callArgs)
      if (opened.kind === 'open') return askResult(m.codec, opened.confirmation, m.principal, gate.entry.id)
      r = opened.result
    }
    confirmed = afterConfirm(deps.catalog, scope, gate.entry, variant, r)
  } else {
    confirmed = await confirmBeforeCall(deps.confirmations, deps.catalog, scope, who, gate.entry, variant, callArgs, signal, onProgress, inClient?.clientAsk)
  }
  if (!confirmed.ok) return refuse({ outcome: confirmed.outcome, ...(confirmed.status ? { status: confirmed.status } : {}) }, confirmed.text)
  const up = deps.manager.get(confirmed.entry.server)
  if (!up) return refuse({ outcome: 'error' }, notRunning(confirmed.entry.server))
  const timeoutMs = deps.catalog.currentConfig.call_timeout_ms
  const entry = confirmed.entry
  const run = async (asker: CallAsker | undefined, callSignal: AbortSignal): Promise<CallToolResult> => {
    try {
      // the upstream's questions: the agent's client, or the user where the client cannot show them or the user must allow them first
      const gated = withUser(asker, deps, who, entry, variant)
      const pending = up.callTool(entry.name, callArgs, { timeoutMs, signal: callSignal, onProgress, asker: gated, owner })
      // the request is written to the upstream by now: the record's outcome-free part is made while it works
      record.draft()
      const raw = (await pending) as CallToolResult
      // structuredContent must match the approved outputSchema, else the agent gets an error instead
      const checked = checkStructuredOutput(entry.server, entry.id, entry.def.outputSchema, raw)
      const firstText = (checked.content as Array<{ text?: string }>)[0]?.text
      record({ outcome: checked.isError ? 'error' : 'ok', resultBytes: RESULT_BYTES.get(raw), ...(checked !== raw ? { error: firstText } : {}) })
      // resource links and embedded resources name Toolgate's URIs, which read back through it, and their text is bounded (resource-links.ts)
      return agentToolResult(blockSource(entry.server, deps.catalog.serverConfig(entry.server)), checked)
    } catch (e) {
      deps.logger.warn({ tool, err: (e as Error).message }, 'agent call failed')
      return refuse({ outcome: outcomeOf(e) }, (e as Error).message)
    }
  }
  // a 2026-07-28 agent: the call outlives this request when the upstream asks (the retry resumes it)
  if (asks?.relay) {
    const relay = asks.relay(entry.id)
    // the agent cancelling its first request ends the call, as it would without questions
    const stop = (): void => relay.end(new Error('the agent cancelled the call'))
    signal.addEventListener('abort', stop, { once: true })
    const step = await relay.start((asker, callSignal) => run(asker, callSignal))
    signal.removeEventListener('abort', stop)
    return relay.stepResult(step)
  }
  return run(asks?.asker, signal)
}
