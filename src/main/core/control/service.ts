// The control service: the one implementation of the shared `Api`, used by the HTTP control
// API, Electron IPC, the CLI's operator commands and the UI. It reads the catalog and routes
// every decision through catalog/decisions, recording who decided from where. What it shows is
// made beside it: tool-view, prompt-view, resource-view, app-info; Inspect is inspect.ts; the
// server, tool and prompt actions run-actions.ts; a sign-in sign-in-ops.ts.
import {
  ApiError,
  type AgentTokenInfo,
  type ActionResult,
  type ApproveAllResult,
  type ConfirmationActionResult,
  type Api,
  type ApiEvent,
  type AppInfo,
  type SearchArgs,
  type RemoveResult,
  type SecretInfo,
  type SecretStoreInfo,
  type Stats,
  type StatusInfo,
  type RequestActionResult,
} from '../../../shared/api'
import {
  type ApproveAllOptions,
  type ServerAction,
  type ServerActionOptions,
  type ToolAction,
  type ToolActionOptions,
  type GrantOptions,
} from '../../../shared/actions'
import type { AuthStatus, SignInStart } from '../../../shared/auth-status'
import type { ServerEntryView, ServerInput } from '../../../shared/server-entry'
import { parseGrantFor } from '../../../shared/grant-for'
import type { AccessRequest, RequestFilter } from '../../../shared/requests'
import type { PromptAction, PromptActionOptions, PromptInfo } from '../../../shared/prompts'
import { promptInfo } from './prompt-view'
import type { ResourceInfo, TemplateAction } from '../../../shared/resources'
import type { Variant } from '../../../shared/call-variant'
import { ClassifyBodySchema } from '../../../shared/tool-class'
import { classifyTool } from '../catalog/tool-class'
import type { ActivityPage, ActivityQuery, DecisionAction, DecisionOrigin } from '../../../shared/activity'
import { NOBODY } from '../activity/recorder'
import type { AgentView } from '../../../shared/agents'
import { agentViews } from '../agents-view/view'
import { approveAll } from '../catalog/decisions'
import type { Confirmation, ConfirmationFilter } from '../../../shared/confirmations'
import type { Question, QuestionAction, QuestionActionResult, QuestionFilter } from '../../../shared/questions'
import { FULL_SCOPE } from '../access/scope'
import { RetrieveArgsSchema, retrieveWhenStarted } from '../discovery/retrieve'
import type { ServerConfig } from '../../../shared/config-schema'
import { serverInfo } from '../views/server-view'
import { deleteSecret, listSecrets, setSecret } from './secrets-ops'
import { ServerEdits } from './server-edits'
import { signInStatus, signOutOf, startSignIn } from './sign-in-ops'
import { runPromptAction, runServerAction, runToolAction } from './run-actions'
import { appInfo, statusInfo } from './app-info'
import { confirmationAnswered, confirmViaOf, questionAnswered, requestAnswered } from './answers'
import type { ServiceDeps } from './deps'
import { ServerInspect } from './inspect'
import { resourceInfo } from './resource-view'
import { approveTemplate, rejectTemplate } from '../catalog/template-decisions'
import { toolInfo } from './tool-view'

/** Where a decision comes from when the caller did not say (the bare control API). */
export const API_ORIGIN: DecisionOrigin = { by: 'user', via: 'api' }

/** Per core (its deps): the server editor and Inspect, shared by every origin view of the service. */
const perCore = new WeakMap<ServiceDeps, { edits: ServerEdits; inspects: ServerInspect }>()

export class ControlService implements Api {
  private readonly edits: ServerEdits
  private readonly inspects: ServerInspect

  constructor(
    private readonly d: ServiceDeps,
    private readonly origin: DecisionOrigin = API_ORIGIN,
  ) {
    let shared = perCore.get(d)
    if (!shared) {
      // once per core, shared by every origin view (as()): the undo of a remove, Inspect's failures, one secret listener
      shared = {
        edits: new ServerEdits({ catalog: d.catalog, configPath: d.configPath, reloadConfig: () => d.reloadConfig() }),
        inspects: new ServerInspect(d),
      }
      perCore.set(d, shared)
      // names only: which secrets changed (the window refreshes its list and the store's warning)
      d.secrets.onChange((names) => d.events.emit('event', { type: 'secrets.changed', data: { names } } satisfies ApiEvent))
    }
    this.edits = shared.edits
    this.inspects = shared.inspects
  }

  /** The same service, with its decisions recorded as made from `origin` (the window, the tray, the CLI…). */
  as(origin: DecisionOrigin): ControlService {
    return new ControlService(this.d, origin)
  }

  private decided(action: DecisionAction, server: string, message: string, tool?: string): ActionResult {
    this.d.activity.decision(this.origin, NOBODY, { action, server, message, ...(tool !== undefined ? { tool } : {}) })
    return { ok: true, message }
  }

  private configOf(name: string) {
    const s = this.d.catalog.serverConfig(name)
    if (!s)
      throw new ApiError(
        'unknown_server',
        `no server named "${name}"; the configured servers are: ${this.d.catalog.currentConfig.servers.map((x) => x.name).join(', ') || '(none)'}.`,
        404,
      )
    return s
  }

  async info(): Promise<AppInfo> {
    return this.infoNow()
  }

  /** The same as info(), synchronously (the core's `info` and the tray use it). */
  infoNow(): AppInfo {
    return appInfo(this.d)
  }

  async status(): Promise<StatusInfo> {
    return statusInfo(
      this.d,
      this.d.catalog.currentConfig.servers.map((s) => this.serverInfo(s)),
    )
  }

  async servers() {
    return { servers: this.d.catalog.currentConfig.servers.map((s) => this.serverInfo(s)) }
  }

  private serverInfo(s: ServerConfig) {
    return this.inspects.describe(
      serverInfo(this.d.catalog, this.d.manager.connections, s, (c) => this.d.oauth?.summary(c)),
      s,
    )
  }

  async signIn(name: string): Promise<SignInStart> {
    return startSignIn(this.d, () => this.configOf(name))
  }

  async authStatus(name: string): Promise<AuthStatus> {
    return signInStatus(this.d, () => this.configOf(name))
  }

  async signOut(name: string): Promise<ActionResult> {
    return { ok: true, message: await signOutOf(this.d, () => this.configOf(name)) }
  }

  async server(name: string) {
    return { server: this.serverInfo(this.configOf(name)) }
  }

  async tools(server: string) {
    this.configOf(server)
    const state = this.d.catalog.store.current
    return {
      tools: this.d.catalog.entries(server).map((e) => {
        const confirm = this.d.confirmations.requirement(e)
        return confirm.required ? { ...toolInfo(e, state), confirm } : toolInfo(e, state)
      }),
    }
  }

  async prompts(server: string): Promise<{ prompts: PromptInfo[] }> {
    this.configOf(server)
    return { prompts: this.d.catalog.prompts.entries(server).map((e) => promptInfo(this.d.catalog, e)) }
  }

  async promptAction(server: string, prompt: string, action: PromptAction, options: PromptActionOptions = {}): Promise<ActionResult> {
    this.configOf(server)
    return this.decided(action, server, await runPromptAction(this.d.catalog, server, prompt, action, options))
  }

  async resources(server: string): Promise<ResourceInfo> {
    return resourceInfo(this.d.catalog, this.d.manager, this.configOf(server))
  }

  async templateAction(server: string, action: TemplateAction, uriTemplate: string, hash: string): Promise<ActionResult> {
    this.configOf(server)
    const decide = action === 'approve' ? approveTemplate : rejectTemplate
    return this.decided(action, server, await decide(this.d.catalog, server, uriTemplate, hash))
  }

  async serverAction(name: string, action: ServerAction, options: ServerActionOptions = {}): Promise<ActionResult> {
    return this.decided(action, name, await runServerAction(this.d, this.inspects, this.configOf(name), action, options))
  }

  async toolAction(server: string, tool: string, action: ToolAction, options: ToolActionOptions = {}): Promise<ActionResult> {
    this.configOf(server)
    return this.decided(action, server, await runToolAction(this.d.catalog, server, tool, action, options), tool)
  }

  async classifyTool(server: string, tool: string, cls: Variant, hash: string): Promise<ActionResult> {
    this.configOf(server)
    const body = ClassifyBodySchema.safeParse({ class: cls, hash })
    if (!body.success) throw new ApiError('invalid_arguments', body.error.issues[0].message, 400)
    return this.decided('classify', server, await classifyTool(this.d.catalog, server, tool, body.data.class, body.data.hash), tool)
  }

  async approveAll(server: string, options: ApproveAllOptions = {}): Promise<ApproveAllResult> {
    this.configOf(server)
    const r = await approveAll(this.d.catalog, server, options.hashes)
    return { ...this.decided('approve', server, r.message), waiting: r.waiting }
  }

  async search(args: SearchArgs): Promise<string> {
    const parsed = RetrieveArgsSchema.safeParse(args)
    if (!parsed.success) throw new ApiError('invalid_arguments', parsed.error.issues[0].message, 400)
    // Not counted in stats: they measure what agents look for, not the user's own searches.
    // Waits for starting servers like retrieve_tools does, so both answer the same bytes.
    return retrieveWhenStarted(this.d.catalog, this.d.manager, parsed.data, FULL_SCOPE)
  }

  async agentTokens(agent: string): Promise<{ tokens: AgentTokenInfo[] }> {
    return { tokens: this.d.tokens.list(agent) }
  }

  async revokeAgentTokens(agent: string, id?: string): Promise<ActionResult> {
    return { ok: true, message: id === undefined ? await this.d.tokens.revokeAll(agent) : await this.d.tokens.revoke(agent, id) }
  }

  /** The filter is checked where it comes in (the table's schema: IPC, HTTP); the CLI checks its --status. */
  async requests(filter: RequestFilter = {}): Promise<{ requests: AccessRequest[] }> {
    return { requests: this.d.requests.list(filter) }
  }

  async grantRequest(id: string, grantFor: string, options: GrantOptions = {}): Promise<RequestActionResult> {
    const g = parseGrantFor(grantFor)
    if ('error' in g) throw new ApiError('invalid_arguments', g.error, 400)
    return requestAnswered(this.d.activity, this.origin, 'grant', await this.d.requests.grant(id, g, options.hash))
  }

  async denyRequest(id: string): Promise<RequestActionResult> {
    return requestAnswered(this.d.activity, this.origin, 'deny', await this.d.requests.deny(id))
  }

  async confirmations(filter: ConfirmationFilter = {}): Promise<{ confirmations: Confirmation[] }> {
    return { confirmations: this.d.confirmations.list(filter) }
  }

  async allowConfirmation(id: string): Promise<ConfirmationActionResult> {
    return confirmationAnswered(this.d.activity, this.origin, 'allow', this.d.confirmations.allow(id, confirmViaOf(this.origin)))
  }

  async denyConfirmation(id: string): Promise<ConfirmationActionResult> {
    return confirmationAnswered(this.d.activity, this.origin, 'deny', this.d.confirmations.deny(id, confirmViaOf(this.origin)))
  }

  async questions(filter: QuestionFilter = {}): Promise<{ questions: Question[] }> {
    return { questions: this.d.questions.list(filter) }
  }

  /** The user's answer to an upstream's question; content is checked against the question's form (400 with what is wrong). */
  async answerQuestion(id: string, action: QuestionAction, content?: Record<string, unknown>): Promise<QuestionActionResult> {
    return questionAnswered(this.d.activity, this.origin, action, content, this.d.questions.answer(id, action, content, confirmViaOf(this.origin)))
  }

  async setAskBeforeCall(server: string, tool: string | null | undefined, ask: boolean): Promise<ActionResult> {
    this.configOf(server)
    return { ok: true, message: await this.d.confirmations.setAsk(server, tool ?? null, ask) }
  }

  async stats(): Promise<Stats> {
    return this.d.stats.snapshot()
  }

  async activity(query: ActivityQuery): Promise<ActivityPage> {
    return this.d.activity.page(query)
  }

  /** Each configured agent (its AgentInfo: name, scope, token count) and each local client, with reach, tokens, recent activity and context cost. */
  async agents(): Promise<{ agents: AgentView[] }> {
    return {
      agents: await agentViews({
        catalog: this.d.catalog,
        activity: this.d.activity,
        tokensOf: (agent) => this.d.tokens.list(agent),
        askInClient: (agent) => this.d.askInClient.info(agent),
      }),
    }
  }

  /** The user's ask_in_client switch of one agent (refused where the config or the organisation decides). */
  async setAskInClient(agent: string, on: boolean): Promise<ActionResult> {
    return { ok: true, message: await this.d.askInClient.set(agent, on) }
  }

  async serverEntry(server: string): Promise<{ entry: ServerEntryView }> {
    return { entry: this.edits.view(server) }
  }

  async addServer(input: ServerInput): Promise<ActionResult> {
    const r = await this.edits.add(input)
    return this.decided('add', input.name, r.message)
  }

  editServer(server: string, input: ServerInput): Promise<ActionResult> {
    return this.edits.edit(server, input)
  }

  async removeServer(server: string): Promise<RemoveResult> {
    const r = await this.edits.remove(server)
    this.decided('remove', server, r.message)
    // its sign-in ended with it (core.ts, applyConfig); the answer says whether the revocation went through
    const signIn = await this.d.oauth?.howEnded(server)
    return signIn ? { ...r, message: `${r.message} ${signIn}` } : r
  }

  async restoreServer(server: string): Promise<ActionResult> {
    const r = await this.edits.restore(server)
    return this.decided('add', server, r.message)
  }

  async secrets(): Promise<{ secrets: SecretInfo[]; store: SecretStoreInfo }> {
    return listSecrets(this.d.secrets, this.d.catalog.currentConfig.servers)
  }

  async setSecret(name: string, value: string): Promise<ActionResult> {
    return setSecret(this.d.secrets, this.d.catalog.currentConfig.servers, name, value)
  }

  async deleteSecret(name: string): Promise<ActionResult> {
    return deleteSecret(this.d.secrets, this.d.catalog.currentConfig.servers, name)
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    this.d.events.on('event', listener)
    return () => this.d.events.off('event', listener)
  }
}
