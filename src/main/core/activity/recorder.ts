// The activity recorder: turns what agents and people do into records (searches, calls,
// decisions), masks secrets, appends them to the store, and announces each as an `activity`
// event. Recording never fails the request it describes: a disk error is logged once.
import {
  ACTIVITY_PAGE_DEFAULT,
  ActivityQuerySchema,
  activityQueryError,
  parseSince,
  type ActivityEvent,
  type NewActivityEvent,
  type ActivityPage,
  type ActivityQuery,
  type BlockReason,
  type CallOutcome,
  type DecisionAction,
  type DecisionOrigin,
  type QuestionRecord,
  type ReadEvent,
  type StartEvent,
  type StopEvent,
} from '../../../shared/activity'
import { ApiError } from '../../../shared/api'
import type { Variant } from '../../../shared/call-variant'
import type { ActivityConfig, ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import { argsHmac, argsPreview, maskText, maskTokens, redactorFor } from './redact'
import { ActivityStore, type StoreLimits } from './store'

/** Who is asking: the agent of the session (null for a local admin session) and its MCP client name. */
export interface Who {
  agent: string | null
  client: string | null
}

export const NOBODY: Who = { agent: null, client: null }

export interface CallRecord {
  tool: string
  server: ServerConfig | undefined
  serverName: string | null
  variant: Variant
  args: unknown
  outcome: CallOutcome
  status?: BlockReason
  durationMs: number
  resultBytes?: number
  error?: string
  /** the live server's own secrets (resolved references, OAuth tokens): masked in the preview and the error too */
  mask?: (text: string) => string
}

/** What a call's record says whatever the call's outcome. */
export type CallBasics = Pick<CallRecord, 'tool' | 'server' | 'serverName' | 'variant' | 'args' | 'mask'>

/**
 * The outcome-free part of a call's record, masked and digested: made while the upstream works on
 * the call (call-tool.ts), so that only the outcome is left to add between its answer and the
 * agent's (the record is still written before the agent's answer).
 */
export interface CallDraft {
  readonly basics: CallBasics
  readonly tool: string
  readonly server: string | null
  /** the masked preview (record_args as it was when the draft was made) */
  readonly preview: string | undefined
  readonly hmac: string
  readonly redact: (text: string) => string
}

export interface SearchRecord {
  query: string
  include_disabled: boolean
  hits: number
  locked_only: boolean
  locked: readonly string[]
}

export interface DecisionRecord {
  action: DecisionAction
  server: string
  tool?: string
  message: string
  /** the answer to a waiting call: its arguments' HMAC (64 hex digits), kept apart from the masked message */
  args_hmac?: string
  /** the answer to a server's question: which, where, the names of the fields filled (never values) */
  question?: QuestionRecord
}

/**
 * An agent's prompts/get or resources/read, as the agent-server saw it: the record's own fields
 * (shared/activity.ts ReadEvent) before recorder.read masks and caps them, with the duration unrounded.
 */
export type ReadRecord = Pick<ReadEvent, 'what' | 'server' | 'name' | 'outcome' | 'code' | 'error'> & { durationMs: number }

const ERROR_MAX = 500
const QUERY_MAX = 500
const CLIENT_MAX = 100
const NAME_MAX = 200

export function storeLimits(c: ActivityConfig): StoreLimits {
  const maxBytes = Math.round(c.max_mb * 1024 * 1024)
  return {
    maxBytes,
    retentionMs: c.retention_days * 86_400_000,
    segmentBytes: Math.min(8 * 1024 * 1024, Math.max(64 * 1024, Math.floor(maxBytes / 10))),
  }
}

const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`)
/** masking works on a bounded prefix: a huge text costs no more than a short one */
const masked = (s: string, max: number, redact?: (t: string) => string): string => clip(maskText(s.slice(0, max * 4), redact), max)

/** A form has at most 40 fields (shared/elicit-form.ts); the record keeps their names, clipped and masked like any name. */
const FIELDS_MAX = 40

function questionRecord(q: QuestionRecord): QuestionRecord {
  return {
    ...(q.id !== undefined ? { id: clip(q.id, 100) } : {}),
    mode: q.mode,
    asked_in: q.asked_in,
    ...(q.fields ? { fields: q.fields.slice(0, FIELDS_MAX).map((f) => clip(maskTokens(f.slice(0, 4 * NAME_MAX)), NAME_MAX)) } : {}),
    ...(q.url_host !== undefined ? { url_host: clip(q.url_host, NAME_MAX) } : {}),
  }
}

export class ActivityRecorder {
  private failed = false

  constructor(
    readonly store: ActivityStore,
    private readonly opts: {
      config: () => ActivityConfig
      emit: (event: ActivityEvent) => void
      logger: Logger
      /** the HMAC key of args_hmac (<data-dir>/args.key) */
      argsKey: Buffer
      now?: () => number
    },
  ) {}

  private who(w: Who): Who {
    return { agent: w.agent, client: w.client === null ? null : clip(w.client, CLIENT_MAX) }
  }

  private append(record: NewActivityEvent, now: number): void {
    let event: ActivityEvent
    try {
      event = this.store.append(record, now)
    } catch (e) {
      if (!this.failed)
        this.opts.logger.warn({ err: (e as Error).message, dir: this.store.dir }, 'cannot write the activity record; activity is not being recorded')
      this.failed = true
      return
    }
    this.failed = false
    this.opts.emit(event)
  }

  search(who: Who, s: SearchRecord): void {
    const now = this.opts.now?.() ?? Date.now()
    this.append(
      {
        kind: 'search',
        ts: new Date(now).toISOString(),
        ...this.who(who),
        query: masked(s.query, QUERY_MAX),
        include_disabled: s.include_disabled,
        hits: s.hits,
        locked_only: s.locked_only,
        locked: s.locked.slice(0, 10),
      },
      now,
    )
  }

  /** The outcome-free part of a call's record (see CallDraft); `call` makes it itself when given none. */
  draftCall(c: CallBasics): CallDraft {
    const byConfig = redactorFor(c.server)
    const live = c.mask
    const redact = live ? (t: string) => byConfig(live(t)) : byConfig
    return {
      basics: c,
      tool: clip(maskTokens(c.tool.slice(0, 8 * NAME_MAX)), 2 * NAME_MAX),
      server: c.serverName === null ? null : clip(c.serverName, NAME_MAX),
      preview: this.opts.config().record_args ? argsPreview(c.args, redact) : undefined,
      hmac: argsHmac(this.opts.argsKey, c.args),
      redact,
    }
  }

  /** One call's record; `draft`: its outcome-free part, made earlier from the same basics. */
  call(who: Who, c: CallRecord, draft: CallDraft = this.draftCall(c)): void {
    const now = this.opts.now?.() ?? Date.now()
    const recordArgs = this.opts.config().record_args
    // record_args switched on since the draft: the preview is made now (switched off: left out)
    const preview = recordArgs ? (draft.preview ?? argsPreview(c.args, draft.redact)) : undefined
    this.append(
      {
        kind: 'call',
        ts: new Date(now).toISOString(),
        ...this.who(who),
        tool: draft.tool,
        server: draft.server,
        variant: c.variant,
        outcome: c.outcome,
        ...(c.status ? { status: c.status } : {}),
        duration_ms: Math.round(c.durationMs * 1000) / 1000,
        ...(c.resultBytes !== undefined ? { result_bytes: c.resultBytes } : {}),
        ...(preview !== undefined ? { args_preview: preview } : {}),
        args_hmac: draft.hmac,
        ...(c.error !== undefined ? { error: masked(c.error, ERROR_MAX, draft.redact) } : {}),
      },
      now,
    )
  }

  decision(origin: DecisionOrigin, who: Who, d: DecisionRecord): void {
    const now = this.opts.now?.() ?? Date.now()
    this.append(
      {
        kind: 'decision',
        ts: new Date(now).toISOString(),
        ...this.who(who),
        action: d.action,
        server: clip(d.server, NAME_MAX),
        ...(d.tool !== undefined ? { tool: clip(d.tool, NAME_MAX) } : {}),
        by: origin.by,
        via: origin.via,
        message: masked(d.message, ERROR_MAX),
        // Toolgate's own digest, not text from anyone: kept as it is when it is one (the masking took it for a token)
        ...(d.args_hmac !== undefined && /^[0-9a-f]{64}$/.test(d.args_hmac) ? { args_hmac: d.args_hmac } : {}),
        ...(d.question ? { question: questionRecord(d.question) } : {}),
      },
      now,
    )
  }

  /** An agent's prompts/get or resources/read (ok, refused by the gate, or failed). */
  read(who: Who, r: ReadRecord): void {
    const now = this.opts.now?.() ?? Date.now()
    this.append(
      {
        kind: 'read',
        ts: new Date(now).toISOString(),
        ...this.who(who),
        what: r.what,
        server: r.server === null ? null : clip(r.server, NAME_MAX),
        // a URI may carry a token (?key=...): masked like a call's tool name, capped
        name: masked(r.name, 2 * NAME_MAX),
        outcome: r.outcome,
        ...(r.code !== undefined ? { code: r.code } : {}),
        duration_ms: Math.round(r.durationMs * 1000) / 1000,
        ...(r.error !== undefined ? { error: masked(r.error, ERROR_MAX) } : {}),
      },
      now,
    )
  }

  /** A server started or stopped; `who` is the agent whose request started it, else nobody. */
  lifecycle(who: Who, l: Pick<StartEvent, 'kind' | 'server' | 'reason' | 'message'> | Pick<StopEvent, 'kind' | 'server' | 'reason' | 'message'>): void {
    const now = this.opts.now?.() ?? Date.now()
    const ts = new Date(now).toISOString()
    const server = clip(l.server, NAME_MAX)
    const message = masked(l.message, ERROR_MAX)
    this.append(
      l.kind === 'start'
        ? { kind: 'start', ts, ...this.who(who), server, reason: l.reason, message }
        : { kind: 'stop', ts, ...this.who(who), server, reason: l.reason, message },
      now,
    )
  }

  /** GET /api/v1/activity: validates the query (ApiError 400 with the parameter named). */
  page(query: ActivityQuery): ActivityPage {
    return queryPage(this.store, query, this.opts.now?.() ?? Date.now())
  }

  setConfig(c: ActivityConfig): void {
    this.store.setLimits(storeLimits(c))
  }

  close(): void {
    this.store.close()
  }
}

/** One page from a store (live or read-only). */
export function queryPage(store: ActivityStore, query: ActivityQuery, now: number): ActivityPage {
  const parsed = ActivityQuerySchema.safeParse(query)
  if (!parsed.success) throw new ApiError('invalid_query', activityQueryError(parsed.error.issues), 400)
  const q = parsed.data
  const limit = q.limit ?? ACTIVITY_PAGE_DEFAULT
  const { events, more } = store.query({
    ...(q.agent !== undefined ? { agent: q.agent } : {}),
    ...(q.server !== undefined ? { server: q.server } : {}),
    ...(q.tool !== undefined ? { tool: q.tool } : {}),
    ...(q.kind !== undefined ? { kind: q.kind } : {}),
    ...(q.outcome !== undefined ? { outcome: q.outcome } : {}),
    ...(q.since !== undefined ? { sinceMs: parseSince(q.since, now) ?? undefined } : {}),
    ...(q.cursor !== undefined ? { before: Number(q.cursor) } : {}),
    limit,
  })
  return { events, next_cursor: more && events.length ? events[events.length - 1].id : null }
}
