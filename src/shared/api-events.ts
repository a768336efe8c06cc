// The live events of the control API (SSE `GET /api/v1/events`, the IPC event channel): one
// discriminated union, each event naming what changed so a window reloads only that. The zod
// schema reads them back from the wire (sse.ts); the type is what the core emits.
import { z } from 'zod'
import type { ActivityEvent } from './activity'
import { CONFIRMATION_STATUSES } from './confirmations'
import { REQUEST_STATUSES } from './requests'
import { QUESTION_STATUSES } from './questions'
import { lazy } from './lazy'

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Built when an event is first read (a window or the CLI reads them; `toolgate serve` only sends them): docs/performance.md, memory. */
export const apiEventSchema = lazy(() => {
  const Names = z.array(z.string())
  return z.discriminatedUnion('type', [
    /** these servers' state, counts or grants changed (always sent with tools.changed for the same servers) */
    z.object({ type: z.literal('servers.changed'), data: z.object({ servers: Names }) }),
    /** these servers' tools changed (listed, approved, locked, switched…) */
    z.object({ type: z.literal('tools.changed'), data: z.object({ servers: Names }) }),
    /**
     * The config was read again (`servers`: the configured ones); `reconnected`: the stream came
     * back after a break, or an event arrived unreadable: events may be missing, refetch everything.
     */
    z.object({ type: z.literal('config.reloaded'), data: z.union([z.object({ servers: Names }), z.object({ reconnected: z.literal(true) })]) }),
    /** the config file has a mistake; the last good config stays */
    z.object({ type: z.literal('config.error'), data: z.object({ message: z.string(), file: z.string().optional(), path: z.string().optional() }) }),
    /** an access request was made, answered or expired */
    z.object({ type: z.literal('requests.changed'), data: z.object({ id: z.string(), status: z.enum(REQUEST_STATUSES), new: z.boolean().optional() }) }),
    /** a time-boxed grant ended, or an "Allow once" pass was used */
    z.object({
      type: z.literal('grant.ended'),
      data: z.object({ id: z.string(), server: z.string(), tool: z.string().optional(), why: z.enum(['expired', 'used']), message: z.string() }),
    }),
    /** one new activity record (its fields: shared/activity.ts) */
    z.object({ type: z.literal('activity'), data: z.custom<ActivityEvent>(isObject) }),
    /** these secrets were set or deleted (names only, never a value) */
    z.object({ type: z.literal('secrets.changed'), data: z.object({ names: Names }) }),
    /** a call started waiting for the user's OK (`new`), or was answered, timed out or cancelled */
    z.object({
      type: z.literal('confirmations.changed'),
      data: z.object({ id: z.string(), status: z.enum(CONFIRMATION_STATUSES), new: z.boolean().optional() }),
    }),
    /** an upstream's question started waiting for the user (`new`), or was answered, timed out or withdrawn */
    z.object({ type: z.literal('question'), data: z.object({ id: z.string(), status: z.enum(QUESTION_STATUSES), new: z.boolean().optional() }) }),
  ])
})

export type ApiEvent = z.infer<ReturnType<typeof apiEventSchema>>
export type ApiEventType = ApiEvent['type']

/** Every event type once: a type that the schema adds or drops fails the typecheck here (a literal table, so the schema need not be built to name them). */
const EVENT_TYPES = {
  'servers.changed': true,
  'tools.changed': true,
  'config.reloaded': true,
  'config.error': true,
  'requests.changed': true,
  'grant.ended': true,
  activity: true,
  'secrets.changed': true,
  'confirmations.changed': true,
  question: true,
} as const satisfies Record<ApiEventType, true>

/** The event types, as the SSE stream names them. */
export const API_EVENT_TYPES: readonly ApiEventType[] = Object.keys(EVENT_TYPES) as ApiEventType[]
