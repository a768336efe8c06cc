// Access requests (docs/requests.md): `request_access` from an agent becomes one pending request the user
// answers (Allow once / for a time / always, Deny). Repeated requests for the same tool by the same
// agent fold into one (reason updated, no second notification); an agent may have at most
// MAX_PENDING_PER_AGENT waiting; a denial stands for DENY_COOLDOWN_MS for the whole server (asking
// again, for that tool or any other name on the server, gets the denial, not a new notification).
// Granting performs the user's own acts (grant.ts).
import { ApiError } from '../../../shared/api'
import { parseToolId } from '../../../shared/ids'
import { callWith } from '../../../shared/call-variant'
import { formatDuration, grantForText, parseGrantFor, type GrantFor } from '../../../shared/grant-for'
import {
  ASKED_NAME_MAX,
  CLIENT_NAME_MAX,
  ONCE_STATUSES,
  REASON_MAX,
  RequestAccessArgsSchema,
  safeText,
  type AccessRequest,
  type RequestAnswer,
  type RequestFilter,
} from '../../../shared/requests'
import { NAME_ONLY_STATUSES } from '../../../shared/statuses'
import type { Catalog } from '../catalog/catalog'
import type { Scope } from '../access/scope'
import { PendingDecisions, newId } from './pending'
import { evaluateRequest, type Evaluation } from './evaluate'
import { grantsServer, liftLocks, type LiftContext } from './grant'
import { requireReviewed } from '../catalog/decisions'
import { requireReviewedLaunch } from '../catalog/server-decisions'
import type { GrantKeeper } from '../grants/keeper'

export const MAX_PENDING_PER_AGENT = 20
/** all agents together: bounds memory whatever the number of agents */
export const MAX_PENDING_TOTAL = 200
export const PENDING_TTL_MS = 24 * 3_600_000
export const DENY_COOLDOWN_MS = 10 * 60_000
const KEEP_ANSWERED = 200

/** Who asks: the session's configured agent (null without one) and the client name it gave. */
export interface Asker {
  agent: string | null
  client: string | null
}

export type Answer = { status: 'granted'; for: string; until?: string } | { status: 'denied' }

export interface AskResult {
  request_id: string | null
  status: RequestAnswer
  message: string
}

/** A request_access that waits for the user: the request, the tool id asked for, the lock, the agent's wait_s. */
export interface OpenRequest {
  req: AccessRequest
  id: string
  ev: Evaluation
  waitS: number
}

/** What the person at the agent's own client can answer (the window's buttons): once, 1h, always, deny. */
export const CLIENT_ANSWERS = ['once', '1h', 'always', 'deny'] as const
export type ClientAnswer = (typeof CLIENT_ANSWERS)[number]

export interface RequestsDeps extends LiftContext {
  catalog: Catalog
  keeper: GrantKeeper
  /** the scope an agent has now (the config may have changed since it asked) */
  scopeFor(agent: string | null): Scope
  /** `requests.changed` on the control API's event stream */
  emit(data: { id: string; status: AccessRequest['status']; new?: boolean }): void
  /** a user's answer, for the activity record */
  onAnswered?(req: AccessRequest, message: string): void
  /** the person at the agent's own client answered (ask_in_client), for the activity record */
  onClientAnswer?(req: AccessRequest, action: 'grant' | 'deny', message: string): void
  now?(): number
}

/** A lock on the tool itself (not on its server): what a server-level grant leaves in place. */
const isToolLevelLock = (status: string): boolean => status === 'pending_approval' || status === 'disabled_by_user' || status === 'disabled_unknown'

const agentLabel = (agent: string | null): string => (agent === null ? 'this session' : `agent "${agent}"`)

export class AccessRequests {
  readonly queue = new PendingDecisions<AccessRequest, Answer>((req) => {
    req.status = 'expired'
    req.updated_at = this.iso()
    this.d.emit({ id: req.id, status: 'expired' })
  })

  constructor(private readonly d: RequestsDeps) {}

  private iso(): string {
    return new Date(this.d.now?.() ?? Date.now()).toISOString()
  }

  /** request_access: validates, evaluates the lock, folds or adds, and waits up to wait_s for the answer. */
  async ask(who: Asker, scope: Scope, raw: unknown, signal?: AbortSignal): Promise<AskResult> {
    const o = this.open(who, scope, raw)
    return 'done' in o ? o.done : this.settle(o, o.waitS * 1000, signal)
  }

  /**
   * The first half of request_access: an answer at once (callable, not requestable, an unused
   * pass, a standing denial), or the pending request it made or joined (the agent's wait_s with it).
   */
  open(who: Asker, scope: Scope, raw: unknown): { done: AskResult } | OpenRequest {
    const parsed = RequestAccessArgsSchema.safeParse(raw)
    if (!parsed.success) throw new ApiError('invalid_arguments', `request_access: ${parsed.error.issues[0].message}`, 400)
    const ref = parseToolId(parsed.data.name)
    if ('error' in ref) throw new ApiError('invalid_arguments', `request_access: ${ref.error}`, 400)
    if (ref.tool.length > ASKED_NAME_MAX)
      throw new ApiError('invalid_arguments', `request_access: the tool name is longer than ${ASKED_NAME_MAX} characters`, 400)
    const ev = evaluateRequest(this.d.catalog, scope, ref)
    const id = `${ref.server}:${ref.tool}`
    if (ev.kind === 'error') throw new ApiError('not_requestable', ev.message, 400)
    if (ev.kind === 'not_requestable')
      return { done: { request_id: null, status: 'not_requestable', message: `${ev.message} request_access cannot help with this lock.` } }
    if (ev.kind === 'callable')
      return { done: { request_id: null, status: 'granted', message: `${id} is callable: call it with ${callWith(ev.entry.variant)}.` } }

    const agent = who.agent
    const reason = safeText(parsed.data.reason, REASON_MAX)
    // a known tool by its catalog name; a name the agent made up (a tool nobody has seen on a server
    // that is off or in quarantine) only made safe: it is shown, and granting acts on the server
    const tool = ev.entry ? ev.entry.name : safeText(ref.tool, ASKED_NAME_MAX)
    const same = (r: AccessRequest) => r.agent === agent && r.server === ref.server && r.tool === tool
    const all = this.queue.all()
    // an unused "Allow once" pass: the earlier request was granted and still holds
    const once = this.d.keeper.onceFor(agent, ref.server, tool, ev.entry?.hash)
    if (once) {
      const granted = all.find((r) => r.id === once.request_id)
      return { done: { request_id: granted?.id ?? null, status: 'granted', message: this.grantedMessage(id, 'once', ev) } }
    }
    // a denial holds for the whole server during the cooldown: another tool name of the same server
    // (a made-up one on a server in quarantine is a request for the server) gets the denial too
    const now = this.d.now?.() ?? Date.now()
    const denied = all
      .filter(
        (r) => r.agent === agent && r.server === ref.server && r.status === 'denied' && Date.parse(r.answered_at ?? r.updated_at) > now - DENY_COOLDOWN_MS,
      )
      .pop()
    if (denied) return { done: { request_id: denied.id, status: 'denied', message: this.deniedMessage(id, denied) } }

    let req = this.queue.pending().find(same)
    if (req) {
      req.reason = reason
      req.asked++
      req.lock = ev.status
      req.updated_at = this.iso()
      this.d.emit({ id: req.id, status: 'pending' })
    } else {
      const mine = this.queue.pending().filter((r) => r.agent === agent).length
      if (mine >= MAX_PENDING_PER_AGENT) {
        throw new ApiError(
          'too_many_requests',
          `request_access: ${agentLabel(agent)} already has ${mine} requests waiting for the user (at most ${MAX_PENDING_PER_AGENT}); wait for answers (call request_access again for one of them with wait_s) before asking for more.`,
          429,
        )
      }
      if (this.queue.pending().length >= MAX_PENDING_TOTAL) {
        throw new ApiError('too_many_requests', `request_access: ${MAX_PENDING_TOTAL} requests already wait for the user; try again later.`, 429)
      }
      const at = this.iso()
      req = {
        id: newId('r'),
        agent,
        client: who.client === null ? null : safeText(who.client, CLIENT_NAME_MAX),
        name: `${ref.server}:${tool}`,
        server: ref.server,
        tool,
        reason,
        status: 'pending',
        lock: ev.status,
        created_at: at,
        updated_at: at,
        asked: 1,
      }
      this.queue.add(req, PENDING_TTL_MS)
      this.queue.prune(KEEP_ANSWERED)
      this.d.emit({ id: req.id, status: 'pending', new: true })
    }
    return { req, id, ev, waitS: parsed.data.wait_s ?? 0 }
  }

  /** The second half: the answer if there is one, else waits up to `waitMs` for it; still pending: how to wait. */
  async settle(o: OpenRequest, waitMs: number, signal?: AbortSignal): Promise<AskResult> {
    const { req, id, ev } = o
    if (req.status !== 'pending' && req.status !== 'expired') return this.answered(req, id, ev)
    if (waitMs > 0 && req.status === 'pending') {
      const r = await this.queue.wait(req.id, waitMs, signal)
      if (r.kind === 'answered') return this.answered(req, id, ev)
    }
    if (req.status === 'expired')
      return { request_id: req.id, status: 'pending', message: `The request for ${id} expired unanswered; ask again if you still need it.` }
    return {
      request_id: req.id,
      status: 'pending',
      message:
        `Asked the user for access to ${id} (request ${req.id}); they see your reason in the Toolgate window and tray. ` +
        `To wait for the answer, call request_access again with the same name and wait_s (up to 120): it joins this request instead of asking twice.`,
    }
  }

  private answered(req: AccessRequest, id: string, ev: Evaluation): AskResult {
    if (req.status === 'denied') return { request_id: req.id, status: 'denied', message: this.deniedMessage(id) }
    // a grant that opened the server does not approve a tool definition nobody reviewed
    const now = this.d.catalog.entry(id)
    if (now && !now.hidden && isToolLevelLock(now.status) && req.granted_for !== 'once') {
      return {
        request_id: req.id,
        status: 'granted',
        message: `The user opened server ${req.server}, but ${id} itself is still locked (${now.status}): its definition waits for the user's review. Call request_access again for it if you still need it.`,
      }
    }
    return { request_id: req.id, status: 'granted', message: this.grantedMessage(id, req.granted_for ?? 'always', ev, req.until) }
  }

  private grantedMessage(id: string, forText: string, ev: Evaluation, until?: string): string {
    const variant = ev.kind === 'requestable' && ev.entry ? callWith(ev.entry.variant) : 'the call_tool_* variant retrieve_tools names'
    const server = ev.kind === 'requestable' && (ev.status === 'server_disabled' || ev.status === 'server_quarantined')
    const start = server ? ' Its server is starting: if the call answers "not connected", retry in a few seconds.' : ''
    if (forText === 'once') return `The user allowed ONE call of ${id} by you: call it with ${variant}. After that call it is locked again.`
    if (forText === 'always') return `The user allowed ${id}: call it with ${variant}.${start}`
    return `The user allowed ${id} until ${until} (${forText}): call it with ${variant}; after that it is locked again.${start}`
  }

  private deniedMessage(id: string, denied?: AccessRequest): string {
    const what = denied && denied.name !== id ? `${denied.name} (a request for server ${denied.server}, which covers ${id} too)` : id
    return `The user denied access to ${what}. Do not ask again right away, for this or another tool of ${id.slice(0, id.indexOf(':'))}; continue without it, or tell the user what you could not do and why.`
  }

  /** GET /api/v1/requests: newest first. */
  list(filter: RequestFilter = {}): AccessRequest[] {
    return this.queue
      .all()
      .filter((r) => !filter.status || r.status === filter.status)
      .reverse()
      .map((r) => this.withLaunchHash(r))
  }

  /**
   * What a waiting request's grant is bound to: a grant that would approve a quarantined server
   * carries the `launch_hash` of that server's launch; a grant that acts on the tool of a running
   * server carries its `definition_hash` (send the one you reviewed back as `hash` with the grant).
   */
  private withLaunchHash(r: AccessRequest): AccessRequest {
    if (r.status !== 'pending') return { ...r }
    const { catalog } = this.d
    const cfg = catalog.serverConfig(r.server)
    if (!cfg) return { ...r }
    if (grantsServer(catalog, r.server)) return catalog.quarantineOf(cfg) !== null ? { ...r, launch_hash: catalog.launchHash(cfg) } : { ...r }
    const e = catalog.entry(`${r.server}:${r.tool}`)
    return e && !e.hidden ? { ...r, definition_hash: e.hash } : { ...r }
  }

  private pendingRequest(id: string): AccessRequest {
    const req = this.queue.get(id)
    if (!req) throw new ApiError('unknown_request', `no access request "${id}"; run \`toolgate requests list\` to see them.`, 404)
    if (!this.queue.isPending(id)) throw new ApiError('request_answered', `request ${id} is already ${req.status}; nothing to do.`, 409)
    return req
  }

  /**
   * The user allows: once (one call by the asking agent), always, or for a time. `expected` is the
   * hash of what the user reviewed: the launch_hash when the grant acts on the server (it is off or
   * in quarantine), else the tool's definition hash; checked before any act (409 launch_changed /
   * definition_changed).
   */
  async grant(id: string, grantFor: GrantFor, expected?: string, via?: 'client'): Promise<{ request: AccessRequest; message: string }> {
    const req = this.pendingRequest(id)
    const ref = { server: req.server, tool: req.tool }
    const { catalog } = this.d
    const cfg = catalog.serverConfig(req.server)
    const entry = catalog.entry(`${req.server}:${req.tool}`)
    if (cfg && grantsServer(catalog, req.server)) requireReviewedLaunch(catalog, cfg, expected)
    else if (entry && !entry.hidden) requireReviewed(entry, expected)
    const ev = evaluateRequest(this.d.catalog, this.d.scopeFor(req.agent), ref)
    if (ev.kind === 'error' || ev.kind === 'not_requestable') throw new ApiError('not_requestable', `cannot grant ${req.name}: ${ev.message}`, 409)
    const forText = grantForText(grantFor)
    let message: string
    let until: string | undefined
    if (ev.kind === 'callable') {
      message = `${req.name} is already callable.`
    } else if (grantFor.kind === 'once') {
      if (!ONCE_STATUSES.has(ev.status)) {
        throw new ApiError(
          'once_not_possible',
          `${req.name} is on a server that is ${ev.status === 'server_disabled' ? 'switched off' : 'in quarantine'}, which does not run for a single call; allow it for a time (e.g. 1h) or always.`,
          409,
        )
      }
      const pass = await this.d.keeper.addOnce(req.agent, req.server, req.tool, req.id, ev.entry?.hash)
      until = pass.until
      message = `Allowed one call of ${req.name} by ${agentLabel(req.agent)} (unused, it lapses at ${pass.until}).`
    } else {
      const now = this.d.now?.() ?? Date.now()
      until = grantFor.kind === 'timed' ? new Date(now + grantFor.ms).toISOString() : undefined
      const acts = await liftLocks(this.d, req.server, req.tool, until ? { id: newId('g'), until, request_id: req.id } : undefined, expected)
      message = `${acts.join(' ')}${grantFor.kind === 'timed' ? ` (for ${formatDuration(grantFor.ms)})` : ''}`.trim()
    }
    if (!this.queue.isPending(id)) throw new ApiError('request_answered', `request ${id} was answered meanwhile.`, 409)
    req.status = 'granted'
    req.granted_for = forText
    if (via) req.answered_via = via
    if (until) req.until = until
    req.answered_at = req.updated_at = this.iso()
    this.queue.answer(id, { status: 'granted', for: forText, ...(until ? { until } : {}) })
    this.d.emit({ id, status: 'granted' })
    this.d.onAnswered?.(req, `Granted ${req.name} to ${agentLabel(req.agent)} (${forText}).`)
    return { request: { ...req }, message }
  }

  async deny(id: string, via?: 'client'): Promise<{ request: AccessRequest; message: string }> {
    const req = this.pendingRequest(id)
    req.status = 'denied'
    if (via) req.answered_via = via
    req.answered_at = req.updated_at = this.iso()
    this.queue.answer(id, { status: 'denied' })
    this.d.emit({ id, status: 'denied' })
    const message = `Denied ${req.name} to ${agentLabel(req.agent)}.`
    this.d.onAnswered?.(req, message)
    return { request: { ...req }, message }
  }

  /**
   * What the person at the agent's own client may answer to a waiting request (once only where a
   * single call can pass the lock), and the hash of what they are shown (launch or definition),
   * which their grant is bound to. Null where granting would approve something nobody reviewed (a
   * server in quarantine, a new or changed tool: NAME_ONLY_STATUSES): that review is the window's,
   * with the launch or the definition in front of the user, never a one-line question elsewhere.
   */
  clientChoices(id: string): { answers: ClientAnswer[]; hash?: string } | null {
    const req = this.queue.get(id)
    if (!req || !this.queue.isPending(id)) return null
    const ev = evaluateRequest(this.d.catalog, this.d.scopeFor(req.agent), { server: req.server, tool: req.tool })
    if (ev.kind !== 'requestable' || NAME_ONLY_STATUSES.has(ev.status)) return null
    const view = this.withLaunchHash(req)
    const answers = CLIENT_ANSWERS.filter((a) => a !== 'once' || ONCE_STATUSES.has(ev.status))
    const hash = view.launch_hash ?? view.definition_hash
    return { answers: [...answers], ...(hash ? { hash } : {}) }
  }

  /**
   * The person at the agent's own client answered (ask_in_client): the first answer wins (a
   * request the window answered meanwhile is left as it is: false). `hash`: what they were shown;
   * a launch or definition that changed since is refused (409), as from the window.
   */
  async answerFromClient(id: string, answer: ClientAnswer, hash?: string): Promise<boolean> {
    if (!this.queue.isPending(id)) return false
    const choices = this.clientChoices(id)
    if (!choices || !choices.answers.includes(answer))
      throw new ApiError(
        'review_in_window',
        `request ${id} can only be answered in the Toolgate window now (what it grants needs the user's review there).`,
        409,
      )
    let r: { request: AccessRequest; message: string }
    if (answer === 'deny') r = await this.deny(id, 'client')
    else {
      const g = parseGrantFor(answer)
      if ('error' in g) throw new ApiError('invalid_arguments', g.error, 400)
      r = await this.grant(id, g, hash, 'client')
    }
    this.d.onClientAnswer?.(r.request, answer === 'deny' ? 'deny' : 'grant', r.message)
    return true
  }

  close(): void {
    this.queue.close()
  }
}
