// The operator's actions on a server and on a tool (a prompt's are in prompts.ts), and the options
// each action takes: the lists the control API routes, the IPC checks and the CLI commands come
// from, the table of which action takes which option, and the options' zod schemas, built at their
// first use (docs/performance.md, memory). The operations table (operations.ts) uses them.
import { z } from 'zod'
import { LaunchHashSchema, ReviewedHashSchema, TimedForSchema } from './grant-for'
import { lazy } from './lazy'
import type { PromptAction, PromptActionOptions } from './prompts'

/** The operator's actions on a server and on a tool: the control API routes, the IPC checks and the CLI commands come from these lists (their options: below). */
export const SERVER_ACTIONS = ['enable', 'disable', 'approve', 'quarantine', 'restart', 'inspect'] as const
export const TOOL_ACTIONS = ['enable', 'disable', 'approve', 'reject'] as const
export type ServerAction = (typeof SERVER_ACTIONS)[number]
export type ToolAction = (typeof TOOL_ACTIONS)[number]

/**
 * Options of a server action: `network` lets Inspect reach the network (a risk: the server is
 * unreviewed); `for` ("1h", "always") makes enable or approve last that long; `hash` for approve
 * and inspect is the `launch_hash` of the launch the user reviewed: when the launch changed since,
 * the action is refused (409 launch_changed) instead of running a launch nobody saw.
 */
export interface ServerActionOptions {
  network?: boolean
  for?: string
  hash?: string
}

/**
 * Options of a tool action: `for` ("1h", "always") makes enable or approve last that long; `hash`
 * for approve and reject is the definition the user reviewed: when the tool changed again since,
 * the action is refused (409 definition_changed) instead of deciding on a definition nobody saw.
 */
export interface ToolActionOptions {
  for?: string
  hash?: string
}

/**
 * Options of a request grant: `hash` is the hash of what the user reviewed, as for approve — the
 * request's `launch_hash` when the grant acts on a server that is off or in quarantine, its
 * `definition_hash` when it acts on a tool. A stale one is refused (409 launch_changed / definition_changed).
 */
export interface GrantOptions {
  hash?: string
}

/**
 * Options of Approve all: `hashes` ({tool: definition hash}) approves exactly those
 * tools as the user saw them (each changed tool's diff); without it only new tools are approved.
 */
export interface ApproveAllOptions {
  hashes?: Record<string, string>
}

/** Which options each server action takes: `for` times enable/approve, `hash` binds approve/inspect to the launch reviewed, `network` lets Inspect reach the network. */
export const SERVER_ACTION_OPTIONS = {
  enable: ['for'],
  disable: [],
  approve: ['for', 'hash'],
  quarantine: [],
  restart: [],
  inspect: ['network', 'hash'],
} as const satisfies Record<ServerAction, ReadonlyArray<keyof ServerActionOptions>>

/** Which options each tool action takes: `for` times enable/approve, `hash` binds approve/reject to the definition reviewed. */
export const TOOL_ACTION_OPTIONS = {
  enable: ['for'],
  disable: [],
  approve: ['for', 'hash'],
  reject: ['hash'],
} as const satisfies Record<ToolAction, ReadonlyArray<keyof ToolActionOptions>>

/** Which options each prompt action takes: `hash` binds approve/reject to the definition reviewed. */
export const PROMPT_ACTION_OPTIONS = {
  enable: [],
  disable: [],
  approve: ['hash'],
  reject: ['hash'],
} as const satisfies Record<PromptAction, ReadonlyArray<keyof PromptActionOptions>>

/** Whether an action takes an option (`takesOption(SERVER_ACTION_OPTIONS, 'enable', 'for')`). */
export function takesOption<A extends string, K extends string>(table: Readonly<Record<A, readonly K[]>>, action: A, key: K): boolean {
  return table[action].includes(key)
}

/** The actions that take an option, in words ("enable and approve"), for error messages. */
export function actionsTaking<A extends string, K extends string>(table: Readonly<Record<A, readonly K[]>>, key: K): string {
  const list = (Object.keys(table) as A[]).filter((a) => table[a].includes(key))
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list.join('')
}

export const ServerActionOptionsSchema = lazy(
  () =>
    z.strictObject(
      {
        network: z.boolean({ error: 'network must be true or false' }).optional(),
        for: TimedForSchema.optional(),
        hash: LaunchHashSchema.optional(),
      },
      { error: 'server action options must be {network?: true|false, for?: "1h", hash?: "<launch_hash>"}' },
    ) satisfies z.ZodType<ServerActionOptions>,
)

export const ToolActionOptionsSchema = lazy(
  () =>
    z.strictObject(
      {
        for: TimedForSchema.optional(),
        hash: z.string({ error: 'hash must be a string: the definition hash you reviewed' }).min(1, 'hash must not be empty').optional(),
      },
      { error: 'tool action options must be {for?: "1h", hash?: "<definition hash>"}' },
    ) satisfies z.ZodType<ToolActionOptions>,
)

export const PromptActionOptionsSchema = lazy(
  () =>
    z.strictObject(
      { hash: z.string({ error: 'hash must be a string: the definition hash you reviewed' }).min(1, 'hash must not be empty').optional() },
      { error: 'prompt action options must be {hash?: "<definition hash>"}' },
    ) satisfies z.ZodType<PromptActionOptions>,
)

export const GrantOptionsSchema = lazy(
  () =>
    z.strictObject(
      { hash: ReviewedHashSchema.optional() },
      { error: 'grant options must be {hash?: "<launch_hash or definition_hash>"}' },
    ) satisfies z.ZodType<GrantOptions>,
)

export const ApproveAllOptionsSchema = lazy(
  () =>
    z.strictObject(
      {
        hashes: z
          .record(
            z.string().min(1, 'a tool name in hashes must not be empty'),
            z.string({ error: 'each value of hashes must be the definition hash you reviewed' }).min(1, 'a hash must not be empty'),
            { error: 'hashes must be an object like {"<tool>": "<definition hash>"}' },
          )
          .optional(),
      },
      { error: 'approve-all options must be {hashes?: {"<tool>": "<definition hash>"}}' },
    ) satisfies z.ZodType<ApproveAllOptions>,
)
