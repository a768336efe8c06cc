// Confirmation of risky calls (docs/confirmations.md): a call that the operator's config or the user's switch
// says needs a human OK waits here, as a pending decision (pending.ts, the same model as access
// requests), until the user allows or denies it, the timeout ends it, or the agent cancels it.
// Allow runs exactly that one call: the waiting call itself goes on, with the arguments whose
// SHA-256 the user was shown; nothing is left behind that another call could use.
// Who requires it and the user's switch: confirm-switch.ts.
import { ApiError } from '../../../shared/api'
import { callWith, type Variant } from '../../../shared/call-variant'
import { escapedName, nameWarning } from '../../../shared/tool-name'
import { CLIENT_NAME_MAX, safeText } from '../../../shared/requests'
import {
  ARGS_NOTE_CHARS,
  declinedText,
  safeArgsText,
  timeoutText,
  type Confirmation,
  type ConfirmationFilter,
  type ConfirmationStatus,
  type ConfirmRequirement,
  type ConfirmVia,
  samplingRefusal,
} from '../../../shared/confirmations'
import { samplingText, samplingView } from '../../../shared/sampling-view'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import path from 'node:path'
import { argsHmac } from '../activity/redact'
import { argsKey } from '../state/data-keys'
import { PendingDecisions, newId } from './pending'
import type { Asker } from './access'
import { argsForDisplay } from './confirm-args'
import { confirmationNeeded } from '../access/decide'
import { confirmTimeoutS, setConfirmSwitch } from './confirm-switch'

/** One agent (or one agent-less client) may keep this many calls waiting; more is refused at once. */
export const MAX_CONFIRMATIONS_PER_AGENT = 5
/** All agents together: bounds memory and the window whatever the number of agents. */
export const MAX_CONFIRMATIONS_TOTAL = 50
const KEEP_ANSWERED = 200
/**
 * While a call waits, an agent that sent a progressToken hears how long it may still wait this
 * often (and once at the start). A client that resets its request timeout on progress (the MCP
 * SDK's resetTimeoutOnProgress) keeps waiting only if this is well below that timeout: 5 s covers
 * timeouts down to ~10 s (the SDK's default is 60 s) with room for a loaded machine, and costs one
 * ~250-byte message per waiting call every 5 s (24 in the default 120 s wait).
 */
export const PROGRESS_EVERY_MS = 5_000

/** What the waiting agent hears (MCP notifications/progress): seconds waited of at most `total`, and a sentence. */
export type WaitProgress = (p: { progress: number; total: number; message: string }) => void

type Answer = { decision: 'allow' | 'deny'; via: ConfirmVia } | { decision: 'cancel' }

export interface ConfirmationsDeps {
  catalog: Catalog
  /** `confirmations.changed` on the control API's event stream */
  emit(data: { id: string; status: ConfirmationStatus; new?: boolean }): void
  /** a user switch changed on this server: servers.changed + tools.changed */
  changed(server: string): void
  /** a confirmation ended (allowed, denied, timed out, cancelled): the activity record */
  onSettled?(c: Confirmation): void
  now?(): number
}

/** What the call path does next: go on with the call, or answer the agent `text` without calling. */
export type ConfirmResult = { go: true; confirmation: Confirmation | null } | { go: false; text: string; confirmation: Confirmation | null }

const whoLabel = (who: Asker): string => (who.agent !== null ? `agent "${who.agent}"` : `this session${who.client ? ` (${safeText(who.client, 40)})` : ''}`)

/**
 * The person at the agent's own client is asked too (ask_in_client, a 2025 session: an
 * elicitation/create raced against the window). Resolves with their answer, or null when they
 * gave none (dismissed, or `signal` withdrew the question because the window answered first).
 */
export type ClientAsk = (c: Confirmation, signal: AbortSignal) => Promise<'allow' | 'deny' | null>

/** A confirmation opened without waiting (2026-07-28: the question goes back to the client in the answer). */
export type Opened = { kind: 'open'; confirmation: Confirmation } | { kind: 'done'; result: ConfirmResult }

export class CallConfirmations {
  readonly queue = new PendingDecisions<Confirmation, Answer>((c) => this.settle(c, 'timeout'))
  /** confirmations whose call already ran or was refused once: a second use (a replayed requestState) is refused */
  private readonly used = new Set<string>()

  constructor(private readonly d: ConfirmationsDeps) {}

  private iso(ms = this.d.now?.() ?? Date.now()): string {
    return new Date(ms).toISOString()
  }

  /** Does a call of this tool need the user's OK, and on whose word? */
  requirement(e: CatalogEntry): ConfirmRequirement {
    return confirmationNeeded(this.d.catalog, e)
  }

  /** Seconds a call of this server waits: the server's confirm_timeout_s, else the top level's. */
  timeoutS(server: string): number {
    return confirmTimeoutS(this.d.catalog, server)
  }

  /**
   * Before the upstream is called: when the tool needs confirmation, the call waits for the
   * user's answer. Not required: goes on at once. The agent's cancellation withdraws the question.
   */
  async confirm(
    who: Asker,
    e: CatalogEntry,
    variant: Variant,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    progress?: WaitProgress,
    clientAsk?: ClientAsk,
  ): Promise<ConfirmResult> {
    const opened = this.open(who, e, variant, args)
    if (opened.kind === 'done') return opened.result
    const c = opened.confirmation
    const timeoutS = this.timeoutS(e.server)
    const now = Date.parse(c.created_at)

    // the agent that asked for progress hears at once that its call waits for a person, and then every PROGRESS_EVERY_MS
    const tell = (): void => {
      const waited = Math.min(timeoutS, Math.round(((this.d.now?.() ?? Date.now()) - now) / 1000))
      progress?.({
        progress: waited,
        total: timeoutS,
        message: `Waiting for the user to allow or deny this call of ${e.id} in Toolgate (${timeoutS - waited} s left); it runs only if they allow it.`,
      })
    }
    const ticker = progress ? setInterval(tell, PROGRESS_EVERY_MS) : undefined
    ticker?.unref?.()
    if (progress) tell()
    // asked in the agent's own client too: whichever answers first wins, the other is withdrawn
    const asking = new AbortController()
    if (clientAsk) {
      void clientAsk({ ...c }, asking.signal)
        .then((d) => {
          if (d !== null && !asking.signal.aborted) this.answerFromClient(c.id, d)
        })
        .catch(() => undefined)
    }
    // the expiry (add's ttl) answers first; the wait's own bound is only a backstop
    const r = await this.queue.wait(c.id, timeoutS * 1000 + 5000, signal).finally(() => {
      clearInterval(ticker)
      asking.abort()
    })
    this.used.add(c.id)
    if (r.kind === 'answered' && r.answer.decision === 'allow') {
      // bound to the arguments the user saw: the call goes on only with exactly those
      if (this.digest(args) !== c.args_hmac) return { go: false, confirmation: c, text: declinedText(e.id) }
      return { go: true, confirmation: c }
    }
    if (r.kind === 'answered' && r.answer.decision === 'deny') return { go: false, confirmation: c, text: declinedText(e.id) }
    if (r.kind === 'expired' || r.kind === 'timeout') {
      if (this.queue.isPending(c.id)) this.withdraw(c, 'timeout')
      return { go: false, confirmation: c, text: timeoutText(e.id, timeoutS) }
    }
    // cancelled: the agent withdrew its request, or Toolgate is stopping
    this.withdraw(c, 'cancelled')
    return { go: false, confirmation: c, text: `CALL_DECLINED: the call of ${e.id} was cancelled before the user answered; it was not run.` }
  }

  /**
   * A confirmation for this call, waiting for the user's answer, without waiting here (or the
   * answer at once: not required, over a limit). The window and tray show it as usual.
   */
  open(who: Asker, e: CatalogEntry, variant: Variant, args: Record<string, unknown>): Opened {
    const need = this.requirement(e)
    if (!need.required) return { kind: 'done', result: { go: true, confirmation: null } }
    const over = this.overLimit(who, `the call of ${e.id} was not run`)
    if (over) return { kind: 'done', result: { go: false, confirmation: null, text: over } }
    const timeoutS = this.timeoutS(e.server)
    const now = this.d.now?.() ?? Date.now()
    // keyed like the activity record's args_hmac (same key): they match, and guesses cannot be tested
    const hmacKey = argsKey(path.dirname(this.d.catalog.store.file))
    const digest = argsHmac(hmacKey, args)
    const shown = argsForDisplay(args, this.d.catalog.serverConfig(e.server))
    const text = safeArgsText(shown.json)
    const c: Confirmation = {
      id: newId('c'),
      kind: 'call',
      ...this.asked(who, e, variant),
      args_hmac: digest,
      args_text: text.text,
      args_preview: safeArgsText(shown.masked, ARGS_NOTE_CHARS).text,
      args_bytes: shown.bytes,
      args_truncated: text.truncated,
      required_by: [...(need.config ? (['config'] as const) : []), ...(need.user ? (['user'] as const) : [])],
      ...(need.config_rule ? { config_rule: need.config_rule } : {}),
      status: 'pending',
      created_at: this.iso(now),
      expires_at: this.iso(now + timeoutS * 1000),
    }
    this.enqueue(c, timeoutS)
    return { kind: 'open', confirmation: c }
  }

  /**
   * Who asks and for which tool, as a confirmation shows it (a call's and a sampling request's
   * alike): the agent, its client name made safe, the tool's id (its name escaped where it does not
   * read as what it is, with the warning), the call variant it needs and the one asked for.
   */
  private asked(who: Asker, e: CatalogEntry, variant: Variant) {
    const warning = nameWarning(e.name)
    return {
      agent: who.agent,
      client: who.client === null ? null : safeText(who.client, CLIENT_NAME_MAX),
      tool: warning ? `${e.server}:${escapedName(e.name)}` : e.id,
      server: e.server,
      ...(warning ? { name_warning: warning } : {}),
      call_with: callWith(e.variant),
      variant,
    }
  }

  /** A new confirmation waits (up to `timeoutS`), the oldest answered ones beyond KEEP_ANSWERED go, and the window hears of it. */
  private enqueue(c: Confirmation, timeoutS: number): void {
    this.queue.add(c, timeoutS * 1000)
    this.queue.prune(KEEP_ANSWERED)
    this.d.emit({ id: c.id, status: 'pending', new: true })
  }

  /** CALL_DECLINED (limit) when this agent, or all together, already keep too many waiting; else null. */
  private overLimit(who: Asker, what: string): string | null {
    const key = who.agent ?? `client:${who.client ?? ''}`
    const waiting = this.queue.pending()
    const mine = waiting.filter((c) => (c.agent ?? `client:${c.client ?? ''}`) === key).length
    if (mine >= MAX_CONFIRMATIONS_PER_AGENT)
      return `CALL_DECLINED (limit): ${whoLabel(who)} already has ${mine} calls waiting for the user's confirmation (at most ${MAX_CONFIRMATIONS_PER_AGENT}); ${what}. Wait for those answers before making more calls that need confirmation.`
    if (waiting.length >= MAX_CONFIRMATIONS_TOTAL)
      return `CALL_DECLINED (limit): ${MAX_CONFIRMATIONS_TOTAL} calls already wait for the user's confirmation; ${what}. Try again later.`
    return null
  }

  /**
   * A server's sampling request (`sampling: "ask"`) made during the call of `e` waits for the
   * user's OK: go on (relay it to the agent's client) only on Allow; Deny, no answer in time or
   * the call ending answer the server with `text`. `request` is the request as made safe by the connection.
   */
  async confirmSampling(
    who: Asker,
    e: CatalogEntry,
    variant: Variant,
    request: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ go: true } | { go: false; text: string }> {
    const over = this.overLimit(who, `the sampling request of server "${e.server}" was refused`)
    if (over) return { go: false, text: over }
    const timeoutS = this.timeoutS(e.server)
    const now = this.d.now?.() ?? Date.now()
    const view = samplingView(request)
    const shown = samplingText(view)
    const c: Confirmation = {
      id: newId('c'),
      kind: 'sampling',
      sampling: view,
      ...this.asked(who, e, variant),
      args_hmac: this.digest(request),
      args_text: safeArgsText(shown).text,
      args_preview: safeArgsText(view.messages[0]?.text ?? '', ARGS_NOTE_CHARS).text,
      args_bytes: Buffer.byteLength(JSON.stringify(request)),
      args_truncated: view.messages.some((m) => m.truncated === true) || view.more_messages !== undefined,
      required_by: ['config'],
      config_rule: `"sampling": "ask" for server ${e.server}`,
      status: 'pending',
      created_at: this.iso(now),
      expires_at: this.iso(now + timeoutS * 1000),
    }
    this.enqueue(c, timeoutS)
    const r = await this.queue.wait(c.id, timeoutS * 1000 + 5000, signal)
    this.used.add(c.id)
    if (r.kind === 'answered' && r.answer.decision === 'allow') return { go: true }
    if (r.kind === 'answered' && r.answer.decision === 'deny') return { go: false, text: samplingRefusal(e.server, 'denied', timeoutS) }
    if (r.kind === 'expired' || r.kind === 'timeout') {
      if (this.queue.isPending(c.id)) this.withdraw(c, 'timeout')
      return { go: false, text: samplingRefusal(e.server, 'timeout', timeoutS) }
    }
    this.withdraw(c, 'cancelled')
    return { go: false, text: samplingRefusal(e.server, 'cancelled', timeoutS) }
  }

  /** The keyed digest of a call's arguments (args_hmac: the same key as the activity record's). */
  private digest(args: Record<string, unknown>): string {
    return argsHmac(argsKey(path.dirname(this.d.catalog.store.file)), args)
  }

  /** The person at the agent's own client answered (ask_in_client): the first answer wins. */
  answerFromClient(id: string, decision: 'allow' | 'deny'): boolean {
    if (!this.queue.isPending(id)) return false
    if (decision === 'allow') this.allow(id, 'client')
    else this.deny(id, 'client')
    return true
  }

  /**
   * The call of an opened confirmation comes back (2026-07-28: the retry with requestState) with
   * `args`: it goes on once if the answer was allow and the arguments are the ones asked about,
   * else the agent gets why not. `pending` while nobody answered yet. Single use: a second take of
   * the same confirmation is refused, whatever the answer was.
   */
  take(id: string, args: Record<string, unknown>): ConfirmResult | 'pending' {
    const c = this.queue.get(id)
    if (!c)
      return { go: false, confirmation: null, text: `CALL_DECLINED: this confirmation is unknown or too old; call the tool again to ask anew. Nothing ran.` }
    if (this.used.has(id))
      return { go: false, confirmation: c, text: `CALL_DECLINED: this confirmation was already used; a confirmation allows one call. Nothing ran.` }
    if (this.queue.isPending(id)) return 'pending'
    this.used.add(id)
    if (c.status === 'allowed') {
      if (this.digest(args) !== c.args_hmac) return { go: false, confirmation: c, text: declinedText(c.tool) }
      return { go: true, confirmation: c }
    }
    if (c.status === 'timeout') return { go: false, confirmation: c, text: timeoutText(c.tool, this.timeoutS(c.server)) }
    if (c.status === 'cancelled')
      return { go: false, confirmation: c, text: `CALL_DECLINED: the call of ${c.tool} was cancelled before the user answered; it was not run.` }
    return { go: false, confirmation: c, text: declinedText(c.tool) }
  }

  /** Ends a waiting confirmation that nobody answered (cancelled, or a backstop timeout). */
  private withdraw(c: Confirmation, status: 'cancelled' | 'timeout'): void {
    if (this.queue.answer(c.id, { decision: 'cancel' })) this.settle(c, status)
  }

  private settle(c: Confirmation, status: Exclude<ConfirmationStatus, 'pending'>, via?: ConfirmVia): void {
    c.status = status
    c.answered_at = this.iso()
    if (via) c.answered_via = via
    this.d.emit({ id: c.id, status })
    this.d.onSettled?.({ ...c })
  }

  /** GET /api/v1/confirmations: the waiting ones by default, oldest first (the order they were asked). */
  list(filter: ConfirmationFilter = {}): Confirmation[] {
    const status = filter.status ?? 'pending'
    return this.queue
      .all()
      .filter((c) => status === 'all' || c.status === status)
      .map((c) => ({ ...c }))
  }

  private waiting(id: string): Confirmation {
    const c = this.queue.get(id)
    if (!c) throw new ApiError('unknown_confirmation', `no confirmation "${id}"; run \`toolgate confirmations list\` to see the waiting ones.`, 404)
    if (!this.queue.isPending(id)) throw new ApiError('confirmation_answered', `confirmation ${id} is already ${c.status}; nothing to do.`, 409)
    return c
  }

  /** The user allows: exactly the waiting call runs, once. */
  allow(id: string, via: ConfirmVia = 'api'): { confirmation: Confirmation; message: string } {
    const c = this.waiting(id)
    this.queue.answer(id, { decision: 'allow', via })
    this.settle(c, 'allowed', via)
    if (c.kind === 'sampling')
      return { confirmation: { ...c }, message: `Allowed this one sampling request of server ${c.server}; it goes to the agent's client now.` }
    return { confirmation: { ...c }, message: `Allowed this one call of ${c.tool} by ${c.agent !== null ? `agent "${c.agent}"` : 'the session'}; it runs now.` }
  }

  /** The user denies: the agent gets CALL_DECLINED and the upstream is never called. */
  deny(id: string, via: ConfirmVia = 'api'): { confirmation: Confirmation; message: string } {
    const c = this.waiting(id)
    this.queue.answer(id, { decision: 'deny', via })
    this.settle(c, 'denied', via)
    if (c.kind === 'sampling')
      return { confirmation: { ...c }, message: `Denied the sampling request of server ${c.server}; the server was told and the model was not used.` }
    return { confirmation: { ...c }, message: `Denied the call of ${c.tool}; the agent was told and nothing ran.` }
  }

  /** The user's "Ask me before each call" on a server (tool null) or a tool: see setConfirmSwitch (confirm-switch.ts). */
  setAsk(server: string, tool: string | null, ask: boolean): Promise<string> {
    return setConfirmSwitch(this.d.catalog, server, tool, ask, (s) => this.d.changed(s))
  }

  /** Toolgate stops: every waiting call is answered (cancelled) so no agent hangs. */
  close(): void {
    this.queue.close()
  }
}
