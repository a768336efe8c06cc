// The one table of control operations: each is described once (argument names and zod schemas,
// HTTP method and path, result type) and everything else derives from it: the `Api` type, the
// IPC handlers and the preload's whitelist, the renderer's IPC client, the HTTP router and the
// HTTP client. Adding an operation touches this table and the service that implements it. The
// actions and the options each takes are in actions.ts; the search page's query in search-query.ts.
// Each operation's argument schema is built at its first use, not at load (docs/performance.md, memory).
import { z } from 'zod'
import {
  type ActionResult,
  type AgentTokenInfo,
  type ApproveAllResult,
  type ApiEvent,
  type AppInfo,
  type ConfirmationActionResult,
  type RemoveResult,
  type RequestActionResult,
  type SecretInfo,
  type SecretStoreInfo,
  type ServerInfo,
  type Stats,
  type StatusInfo,
  type ToolInfo,
} from './api'
import {
  ApproveAllOptionsSchema,
  GrantOptionsSchema,
  PROMPT_ACTION_OPTIONS,
  PromptActionOptionsSchema,
  SERVER_ACTION_OPTIONS,
  SERVER_ACTIONS,
  ServerActionOptionsSchema,
  TOOL_ACTION_OPTIONS,
  TOOL_ACTIONS,
  ToolActionOptionsSchema,
} from './actions'
import type { AuthStatus, SignInStart } from './auth-status'
import type { ServerEntryView, ServerInput } from './server-entry'
import type { AccessRequest } from './requests'
import { RequestFilterSchema } from './requests'
import { ConfirmationFilterSchema, type Confirmation } from './confirmations'
import { QuestionActionSchema, QuestionContentSchema, QuestionFilterSchema, type Question, type QuestionActionResult } from './questions'
import type { ActivityPage, ActivityQuery } from './activity'
import type { AgentView } from './agents'
import { GrantForTextSchema } from './grant-for'
import { argsOfIpc, json, op, text } from './operation'
import { ClassifiedHashSchema, ToolClassSchema } from './tool-class'
import { PROMPT_ACTIONS, type PromptInfo } from './prompts'
import { TEMPLATE_ACTIONS, type ResourceInfo } from './resources'
import { RetrieveArgsSchema } from './retrieve'
import { searchQuery } from './search-query'
import { lazy } from './lazy'

const name = (what: string) => z.string({ error: `${what} must be a non-empty string` }).min(1, `${what} must be a non-empty string`)
const Server = lazy(() => name('server'))
const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Every control operation. Paths are under /api/v1; `:name` is the argument of that name. */
export const OPERATIONS = {
  info: op({ names: [], args: () => z.tuple([]), http: { method: 'GET', paths: ['/info'] }, result: json<AppInfo>() }),
  status: op({ names: [], args: () => z.tuple([]), http: { method: 'GET', paths: ['/status'] }, result: json<StatusInfo>() }),
  servers: op({ names: [], args: () => z.tuple([]), http: { method: 'GET', paths: ['/servers'] }, result: json<{ servers: ServerInfo[] }>() }),
  server: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'GET', paths: ['/servers/:server'] },
    result: json<{ server: ServerInfo }>(),
  }),
  tools: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'GET', paths: ['/servers/:server/tools'] },
    result: json<{ tools: ToolInfo[] }>(),
  }),
  /** A server action; its options by action: SERVER_ACTION_OPTIONS (`?network=true` works for Inspect too). */
  serverAction: op({
    names: ['server', 'action', 'options'],
    args: () =>
      z.tuple([Server(), z.enum(SERVER_ACTIONS, { error: `action must be one of ${SERVER_ACTIONS.join(', ')}` }), ServerActionOptionsSchema().optional()]),
    http: {
      method: 'POST',
      paths: ['/servers/:server/:action'],
      body: { options: { arg: 'options', keys: { by: 'action', keys: SERVER_ACTION_OPTIONS }, flags: ['network'] }, others: 'ignore' },
    },
    result: json<ActionResult>(),
  }),
  /** A tool action; its options by action: TOOL_ACTION_OPTIONS. */
  toolAction: op({
    names: ['server', 'tool', 'action', 'options'],
    args: () =>
      z.tuple([
        Server(),
        name('tool'),
        z.enum(TOOL_ACTIONS, { error: `action must be one of ${TOOL_ACTIONS.join(', ')}` }),
        ToolActionOptionsSchema().optional(),
      ]),
    http: {
      method: 'POST',
      paths: ['/servers/:server/tools/:tool/:action'],
      body: { options: { arg: 'options', keys: { by: 'action', keys: TOOL_ACTION_OPTIONS } }, others: 'ignore' },
    },
    result: json<ActionResult>(),
  }),
  /** Approves the server's new tools together; a changed tool only with its definition hash in `hashes` (what the user reviewed). */
  approveAll: op({
    names: ['server', 'options'],
    args: () => z.tuple([Server(), ApproveAllOptionsSchema().optional()]),
    http: { method: 'POST', paths: ['/servers/:server/tools/approve-all'], body: { options: { arg: 'options', keys: ['hashes'] }, others: 'refuse' } },
    result: json<ApproveAllResult>(),
  }),
  /**
   * The user's class for a tool: its call variant where its server gives no
   * hints (stricter only where it does). `hash` is the definition the user saw (approval.hash): a
   * tool that changed since answers 409 definition_changed; a class the operator set, or a weaker
   * one than the server's own hints, answers 409 (operator_policy, annotation_stricter).
   */
  classifyTool: op({
    names: ['server', 'tool', 'cls', 'hash'],
    args: () => z.tuple([Server(), name('tool'), ToolClassSchema, ClassifiedHashSchema]),
    http: { method: 'POST', paths: ['/servers/:server/tools/:tool/classify'], body: { fields: { class: 'cls', hash: 'hash' }, others: 'refuse' } },
    result: json<ActionResult>(),
  }),
  /** The server's prompts: each with its status, approval and the text it gives agents without arguments. */
  prompts: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'GET', paths: ['/servers/:server/prompts'] },
    result: json<{ prompts: PromptInfo[] }>(),
  }),
  /** A prompt action; approve and reject take the definition hash reviewed (PROMPT_ACTION_OPTIONS). */
  promptAction: op({
    names: ['server', 'prompt', 'action', 'options'],
    args: () =>
      z.tuple([
        Server(),
        name('prompt'),
        z.enum(PROMPT_ACTIONS, { error: `action must be one of ${PROMPT_ACTIONS.join(', ')}` }),
        PromptActionOptionsSchema().optional(),
      ]),
    http: {
      method: 'POST',
      paths: ['/servers/:server/prompts/:prompt/:action'],
      body: { options: { arg: 'options', keys: { by: 'action', keys: PROMPT_ACTION_OPTIONS } }, others: 'ignore' },
    },
    result: json<ActionResult>(),
  }),
  /** The server's resources and templates, read live from the running server: its URIs and the URIs agents see. */
  resources: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'GET', paths: ['/servers/:server/resources'] },
    result: json<ResourceInfo>(),
  }),
  /**
   * Approve or reject a resource template waiting for review, by the server's own URI template
   * (`uriTemplate` of GET …/resources) and the definition hash reviewed (409 definition_changed when stale).
   */
  templateAction: op({
    names: ['server', 'action', 'uriTemplate', 'hash'],
    args: () =>
      z.tuple([
        Server(),
        z.enum(TEMPLATE_ACTIONS, { error: `action must be one of ${TEMPLATE_ACTIONS.join(', ')}` }),
        name('uri_template'),
        ClassifiedHashSchema,
      ]),
    http: {
      method: 'POST',
      paths: ['/servers/:server/resource-templates/:action'],
      body: { fields: { uri_template: 'uriTemplate', hash: 'hash' }, others: 'refuse' },
    },
    result: json<ActionResult>(),
  }),
  agentTokens: op({
    names: ['agent'],
    args: () => z.tuple([name('agent')]),
    http: { method: 'GET', paths: ['/agents/:agent/tokens'] },
    result: json<{ tokens: AgentTokenInfo[] }>(),
  }),
  /** Revokes one token (by id), or every token of the agent when `id` is absent. */
  revokeAgentTokens: op({
    names: ['agent', 'id'],
    args: () => z.tuple([name('agent'), name('token id').optional()]),
    http: { method: 'DELETE', paths: ['/agents/:agent/tokens/:id', '/agents/:agent/tokens'] },
    result: json<ActionResult>(),
  }),
  /** The user's ask_in_client switch of a configured agent: its questions may go to its own client too (409 ask_in_client_locked where the config or the organisation decides). */
  setAskInClient: op({
    names: ['agent', 'on'],
    args: () => z.tuple([name('agent'), z.boolean({ error: 'on must be true or false' })]),
    http: { method: 'POST', paths: ['/agents/:agent/ask-in-client'], body: { fields: { on: 'on' }, others: 'refuse' } },
    result: json<ActionResult>(),
  }),
  /** Agents' access requests, newest first. */
  requests: op({
    names: ['filter'],
    args: () => z.tuple([RequestFilterSchema.optional()]),
    http: { method: 'GET', paths: ['/requests'], query: { arg: 'filter' } },
    result: json<{ requests: AccessRequest[] }>(),
  }),
  /** Answers a request: `for` is "once", "always" or a duration ("1h"); `options.hash` binds the grant to the launch or definition reviewed. */
  grantRequest: op({
    names: ['id', 'grantFor', 'options'],
    args: () => z.tuple([name('request id'), GrantForTextSchema, GrantOptionsSchema().optional()]),
    http: {
      method: 'POST',
      paths: ['/requests/:id/grant'],
      body: { fields: { for: 'grantFor' }, options: { arg: 'options', keys: ['hash'] }, others: 'refuse' },
    },
    result: json<RequestActionResult>(),
  }),
  denyRequest: op({
    names: ['id'],
    args: () => z.tuple([name('request id')]),
    http: { method: 'POST', paths: ['/requests/:id/deny'] },
    result: json<RequestActionResult>(),
  }),
  /** Calls waiting for the user's OK (pending unless `status` says otherwise), oldest first. */
  confirmations: op({
    names: ['filter'],
    args: () => z.tuple([ConfirmationFilterSchema.optional()]),
    http: { method: 'GET', paths: ['/confirmations'], query: { arg: 'filter' } },
    result: json<{ confirmations: Confirmation[] }>(),
  }),
  /** Runs exactly the waiting call, once. Where the user answered comes from the connection (the window, the tray, X-Toolgate-Client), never from the body. */
  allowConfirmation: op({
    names: ['id'],
    args: () => z.tuple([name('confirmation id')]),
    http: { method: 'POST', paths: ['/confirmations/:id/allow'], body: { others: 'refuse' } },
    result: json<ConfirmationActionResult>(),
  }),
  /** Answers the agent CALL_DECLINED; the upstream is never called. */
  denyConfirmation: op({
    names: ['id'],
    args: () => z.tuple([name('confirmation id')]),
    http: { method: 'POST', paths: ['/confirmations/:id/deny'], body: { others: 'refuse' } },
    result: json<ConfirmationActionResult>(),
  }),
  /** Questions of upstream servers that Toolgate asks the user (pending unless `status` says otherwise), oldest first. */
  questions: op({
    names: ['filter'],
    args: () => z.tuple([QuestionFilterSchema.optional()]),
    http: { method: 'GET', paths: ['/questions'], query: { arg: 'filter' } },
    result: json<{ questions: Question[] }>(),
  }),
  /** The user's answer: accept (content: the form's fields, checked against the server's schema: 400 with what is wrong), decline or cancel. */
  answerQuestion: op({
    names: ['id', 'action', 'content'],
    args: () => z.tuple([name('question id'), QuestionActionSchema, QuestionContentSchema.optional()]),
    http: { method: 'POST', paths: ['/questions/:id/answer'], body: { fields: { action: 'action', content: 'content' }, others: 'refuse' } },
    result: json<QuestionActionResult>(),
  }),
  /** The user's "Ask me before each call" on a server (tool null) or one tool; it only adds to the config's rule. */
  setAskBeforeCall: op({
    names: ['server', 'tool', 'ask'],
    args: () => z.tuple([Server(), name('tool').nullish(), z.boolean({ error: 'ask must be true or false' })]),
    http: { method: 'POST', paths: ['/servers/:server/tools/:tool/confirm', '/servers/:server/confirm'], body: { fields: { ask: 'ask' }, others: 'refuse' } },
    result: json<ActionResult>(),
  }),
  /** The exact JSON text that retrieve_tools returns for the same arguments (checked with retrieve_tools' own schema). */
  search: op({
    names: ['args'],
    args: () => z.tuple([RetrieveArgsSchema]),
    http: { method: 'GET', paths: ['/search'], query: { arg: 'args', codec: searchQuery } },
    result: text(),
  }),
  stats: op({ names: [], args: () => z.tuple([]), http: { method: 'GET', paths: ['/stats'] }, result: json<Stats>() }),
  /** What agents did and who decided what, newest first (the query is checked by the activity store: its own words name the parameter). */
  activity: op({
    names: ['query'],
    args: () => z.tuple([z.custom<ActivityQuery>(isObject, 'activity needs a query object')]),
    http: { method: 'GET', paths: ['/activity'], query: { arg: 'query' } },
    result: json<ActivityPage>(),
  }),
  /** Each configured agent and each local client: scope, tokens, reach, recent activity, context cost. */
  agents: op({ names: [], args: () => z.tuple([]), http: { method: 'GET', paths: ['/agents'] }, result: json<{ agents: AgentView[] }>() }),
  /** The server's entry for the edit form (hidden values, policy read-only). */
  serverEntry: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'GET', paths: ['/servers/:server/entry'] },
    result: json<{ entry: ServerEntryView }>(),
  }),
  /** Adds a server; it waits in quarantine until the user inspects and approves it (the entry is checked by the core, like the config file). */
  addServer: op({
    names: ['input'],
    args: () => z.tuple([z.custom<ServerInput>(() => true)]),
    http: { method: 'POST', paths: ['/servers'], body: { whole: 'input', others: 'ignore' } },
    result: json<ActionResult>(),
  }),
  editServer: op({
    names: ['server', 'input'],
    args: () => z.tuple([Server(), z.custom<ServerInput>(() => true)]),
    http: { method: 'PUT', paths: ['/servers/:server'], body: { whole: 'input', others: 'ignore' } },
    result: json<ActionResult>(),
  }),
  /** Removes a server; its approvals are kept for an undo (`restoreServer`) for a while, then dropped. */
  removeServer: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'DELETE', paths: ['/servers/:server'] },
    result: json<RemoveResult>(),
  }),
  restoreServer: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'POST', paths: ['/servers/:server/restore'] },
    result: json<ActionResult>(),
  }),
  /** The secrets by name (values are write-only: no surface ever reads one back). */
  secrets: op({
    names: [],
    args: () => z.tuple([]),
    http: { method: 'GET', paths: ['/secrets'] },
    result: json<{ secrets: SecretInfo[]; store: SecretStoreInfo }>(),
  }),
  setSecret: op({
    names: ['name', 'value'],
    args: () => z.tuple([name('name'), z.string({ error: 'send {"value": "<the secret>"} as the JSON body' })]),
    http: { method: 'PUT', paths: ['/secrets/:name'], body: { fields: { value: 'value' }, others: 'ignore' } },
    result: json<ActionResult>(),
  }),
  deleteSecret: op({
    names: ['name'],
    args: () => z.tuple([name('name')]),
    http: { method: 'DELETE', paths: ['/secrets/:name'] },
    result: json<ActionResult>(),
  }),
  /** Starts an OAuth sign-in of an HTTP server; the browser comes back to Toolgate's /oauth/callback. */
  signIn: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'POST', paths: ['/servers/:server/auth/login'] },
    result: json<SignInStart>(),
  }),
  authStatus: op({ names: ['server'], args: () => z.tuple([Server()]), http: { method: 'GET', paths: ['/servers/:server/auth'] }, result: json<AuthStatus>() }),
  /** Deletes the server's tokens (revoking them where the authorization server allows). */
  signOut: op({
    names: ['server'],
    args: () => z.tuple([Server()]),
    http: { method: 'POST', paths: ['/servers/:server/auth/logout'] },
    result: json<ActionResult>(),
  }),
}

type Operations = typeof OPERATIONS
export type OpName = keyof Operations
export type OpArgs<K extends OpName> = z.output<Operations[K]['args']>
export type OpResult<K extends OpName> = Operations[K]['result'] extends { readonly type?: infer R } ? R : never

export const OP_NAMES = Object.keys(OPERATIONS) as OpName[]

export function isOpName(v: unknown): v is OpName {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(OPERATIONS, v)
}

/** The operations as methods, each taking its table arguments and answering its table result. */
export type ApiOps = { [K in keyof Operations]: (...args: OpArgs<K>) => Promise<OpResult<K>> }

/** The one typed interface behind the control API (HTTP + SSE), the Electron IPC bridge and the renderer; the core's ControlService implements it. */
export interface Api extends ApiOps {
  /** Live events; returns an unsubscribe function. */
  subscribe(listener: (event: ApiEvent) => void): () => void
}

/** The arguments of an IPC call of `op`, checked by its schema (400 bad_request on a mistake). */
export function ipcArgs<K extends OpName>(op: K, args: readonly unknown[]): OpArgs<K> {
  return argsOfIpc(op, OPERATIONS[op], args) as OpArgs<K>
}

/** Calls operation `op` of an Api with arguments already checked by its schema (the IPC handler and the HTTP router). */
export function callOperation(api: Api, op: OpName, args: readonly unknown[]): Promise<unknown> {
  const method = api[op] as (...a: unknown[]) => Promise<unknown>
  return method.call(api, ...args)
}

/** The operations of an Api as calls of `invoke` (the renderer's IPC client and the HTTP client): VS Code's ProxyChannel, from the table. */
export function proxyOperations(invoke: (op: OpName, args: unknown[]) => Promise<unknown>): ApiOps {
  const ops: Partial<Record<OpName, (...args: unknown[]) => Promise<unknown>>> = {}
  for (const op of OP_NAMES) ops[op] = (...args: unknown[]) => invoke(op, args)
  return ops as ApiOps
}
