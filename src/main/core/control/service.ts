// The control service: the one implementation of the shared `Api`, used by the HTTP control
// API, Electron IPC, the CLI's operator commands and the UI. It reads the catalog and routes
// every decision through catalog/decisions.
import { EventEmitter } from 'node:events'
import path from 'node:path'
import {
  ApiError,
  type AgentInfo,
  type AgentTokenInfo,
  type ConnectSnippet,
  type ActionResult,
  type ApproveAllOptions,
  type ApproveAllResult,
  type ConfirmationActionResult,
  type Api,
  type AuthStatus,
  type SignInStart,
  type ApiEvent,
  type AppInfo,
  type SearchArgs,
  type RemoveResult,
  type ServerEntryView,
  type ServerInput,
  type SecretInfo,
  type SecretStoreInfo,
  type ServerAction,
  type ServerActionOptions,
  type Stats,
  type StatusInfo,
  type ToolAction,
  type ToolActionOptions,
  type ToolInfo,
  type RequestActionResult,
  type GrantOptions,
} from '../../../shared/api'
import { parseGrantFor, type GrantFor } from '../../../shared/grant-for'
import type { AccessRequest, RequestFilter } from '../../../shared/requests'
import { actionsTaking, PROMPT_ACTION_OPTIONS, SERVER_ACTION_OPTIONS, TOOL_ACTION_OPTIONS } from '../../../shared/operations'
import type { PromptAction, PromptActionOptions, PromptInfo } from '../../../shared/prompts'
import { approvePrompt, rejectPrompt, setPromptDisabled } from '../catalog/prompt-decisions'
import { promptInfo } from './prompt-view'
import type { ResourceInfo } from '../../../shared/resources'
import { serverResources } from '../agent-server/resources'
import type { State } from '../state/schema'
import { remediationFor } from '../../../shared/statuses'
import { ORGANISATION } from '../../../shared/policy'
import { summarizeServers } from '../../../shared/summary'
import { callWith, requiredVariant, type ToolAnnotations, type Variant } from '../../../shared/call-variant'
import { ClassifyBodySchema } from '../../../shared/tool-class'
import { shellArg } from '../../../shared/launch'
import { classifyTool } from '../catalog/tool-class'
import { nameWarning } from '../../../shared/tool-name'
import type { ActivityPage, ActivityQuery, DecisionAction, DecisionOrigin } from '../../../shared/activity'
import { NOBODY, type ActivityRecorder } from '../activity/recorder'
import type { AgentView } from '../../../shared/agents'
import { agentViews } from '../agents-view/view'
import { Catalog, type CatalogEntry } from '../catalog/catalog'
import {
  approveAll,
  approveServer,
  approveTool,
  organisationRefusal,
  quarantineServer,
  rejectTool,
  requireReviewedLaunch,
  setServerEnabled,
  setToolDisabled,
} from '../catalog/decisions'
import { timedGrantOf, type TimedAct } from '../state/grant-undo'
import { newId } from '../requests/pending'
import type { AccessRequests } from '../requests/access'
import type { AskInClientSwitch } from '../agents-view/ask-in-client'
import type { CallConfirmations } from '../requests/confirmations'
import { CONFIRM_VIA, type Confirmation, type ConfirmationFilter, type ConfirmVia } from '../../../shared/confirmations'
import { FULL_SCOPE } from '../access/scope'
import { RetrieveArgsSchema, retrieveWhenStarted } from '../discovery/retrieve'
import type { DiscoveryStats } from '../discovery/stats'
import { ON_DEMAND_WAIT_MS, type UpstreamManager } from '../upstream/manager'
import { idleStopSeconds, lifecycleOf } from '../../../shared/lifecycle'
import { inspectTimeoutMs, inspectUpstream } from '../upstream/inspect'
import { launcherOf, looksLikeNetworkFailure, registryAccess, sandboxSupport } from '../upstream/sandbox'
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import type { AgentTokens } from '../agent-server/tokens'
import { serverInfo } from '../views/server-view'
import { deleteSecret, listSecrets, setSecret } from './secrets-ops'
import { ServerEdits } from './server-edits'
import type { SecretStore } from '../secrets/store'
import { needsSignIn } from '../oauth/errors'
import { SignInError, type OAuthService } from '../oauth/service'
import { resolveReferences } from '../secrets/resolve'
import { VERSION } from '../version'
import { appRoot, resolveDataDir } from '../paths'
import { CLIENT_LABELS, CLIENT_NAMES, clientConfigPath, currentLaunchCommand, snippetText } from '../clients'

export interface ServiceDeps {
  catalog: Catalog
  manager: UpstreamManager
  stats: DiscoveryStats
  logger: Logger
  events: EventEmitter
  configPath: string
  dataDir: string
  /** the user's secrets (values never leave through this service) */
  secrets: SecretStore
  startedAt: number
  /** re-read the config file now (after Toolgate wrote it) */
  reloadConfig(): void
  mcpUrl(): string | null
  configError(): string | null
  tokens: AgentTokens
  /** agents' access requests (requests/index.ts) */
  requests: AccessRequests
  activity: ActivityRecorder
  /** false for an operator command while nothing owns the data dir: no upstream runs */
  running: boolean
  /** OAuth sign-in of HTTP servers; absent where nothing can receive the browser's redirect */
  oauth?: OAuthService
  /** calls waiting for the user's OK (requests/confirmations.ts) */
  confirmations: CallConfirmations
  /** each agent's ask_in_client switch (agents-view/ask-in-client.ts) */
  askInClient: AskInClientSwitch
  /** the data dir is deleted when this Toolgate exits (`toolgate demo`): the connect snippets say so */
  temporaryDataDir?: boolean
}

/** `for` of an enable/approve action: nothing (permanent), "always", or a duration; "once" answers requests only. */
function timedAct(action: string, raw: string | undefined): TimedAct | undefined {
  if (raw === undefined) return undefined
  const g: GrantFor | { error: string } = parseGrantFor(raw)
  if ('error' in g) throw new ApiError('invalid_arguments', g.error, 400)
  if (g.kind === 'once')
    throw new ApiError('invalid_arguments', `"once" answers an agent's access request; ${action} takes a duration like "1h" or "always"`, 400)
  if (g.kind === 'always') return undefined
  return { id: newId('g'), until: new Date(Date.now() + g.ms).toISOString() }
}

/** Refuses an option the action does not take (the table of operations says which take which), e.g. `for` on disable. */
function onlyOptionsOf<A extends string, K extends string>(table: Readonly<Record<A, readonly K[]>>, action: A, options: Partial<Record<K, unknown>>): void {
  for (const key of Object.keys(options) as K[]) {
    if (options[key] === undefined || table[action].includes(key)) continue
    const what = key === 'hash' ? '"hash" (the hash you reviewed)' : `"${key}"`
    throw new ApiError('invalid_arguments', `${what} applies to ${actionsTaking(table, key)} only, not ${action}`, 400)
  }
}

/** Where a decision comes from when the caller did not say (the bare control API). */
export const API_ORIGIN: DecisionOrigin = { by: 'user', via: 'api' }

/** Snippets for every supported client, launching this install's `toolgate stdio`. */
export function connectSnippets(dataDir: string, o: { temporary?: boolean } = {}): ConnectSnippet[] {
  const launch = currentLaunchCommand(path.join(appRoot(), 'bin', 'toolgate.js'))
  const defaultDir = resolveDataDir(undefined)
  const own = dataDir !== defaultDir
  return CLIENT_NAMES.map((client) => ({
    client,
    label: CLIENT_LABELS[client],
    config_path: clientConfigPath(client),
    snippet: snippetText(client, { launch, ...(own ? { dataDir } : {}) }),
    // the command that writes exactly this snippet, never the default data dir's beside a snippet for another
    write_command: `toolgate connect ${client} --write${own ? ` --data-dir ${shellArg(dataDir)}` : ''}`,
    ...(o.temporary ? { temporary: true } : {}),
  }))
}

export function toolInfo(e: CatalogEntry, state?: Readonly<State>): ToolInfo {
  const warning = nameWarning(e.name)
  const p = e.previous
  const grant = state ? timedGrantOf(state, e.server, e.name) : undefined
  return {
    name: e.id,
    server: e.server,
    tool: e.name,
    ...(warning ? { name_warning: warning } : {}),
    ...(e.def.title ? { title: e.def.title } : {}),
    // shown to the user for review (rendered as text); never indexed unless approved
    description: e.def.description,
    status: e.status,
    ...(e.status !== 'callable' ? { remediation: remediationFor(e.status, e.operatorHold, e.organisation) } : {}),
    ...(e.organisation ? { policy: ORGANISATION } : {}),
    call_with: callWith(e.variant),
    ...(e.def.annotations ? { annotations: e.def.annotations } : {}),
    ...(e.annotationsMissing ? { annotations_missing: true as const } : {}),
    variant_source: e.variantSource,
    ...(e.classification ? { classification: { ...e.classification } } : {}),
    inputSchema: e.def.inputSchema,
    ...(e.def.outputSchema ? { outputSchema: e.def.outputSchema } : {}),
    approval: {
      status: e.approval,
      hash: e.hash,
      ...(e.rejectedAt ? { rejected_at: e.rejectedAt } : {}),
      ...(p
        ? {
            previous_description: p.description,
            previous: {
              ...(p.title ? { title: p.title } : {}),
              description: p.description,
              inputSchema: p.inputSchema,
              ...(p.outputSchema ? { outputSchema: p.outputSchema } : {}),
              ...(p.annotations ? { annotations: p.annotations as ToolAnnotations } : {}),
              call_with: callWith(requiredVariant(p.annotations as ToolAnnotations | undefined)),
            },
          }
        : {}),
    },
    ...(grant ? { grant } : {}),
  }
}

/** Per core (its deps): the server editor, shared by every origin view of the service. */
const perCore = new WeakMap<ServiceDeps, ServerEdits>()

/** Inspect failures for want of network, per server: shared by every origin's view of one service (its deps). */
const OFFLINE_FAILURES = new WeakMap<ServiceDeps, Map<string, { message: string; launchHash: string }>>()

/** What an Inspect waits for, in words, for the window while it runs. */
function inspectWaitsFor(s: ServerConfig): string {
  if (!usesStdio(s)) return `connecting to ${s.url ?? 'the server'} and waiting for its list of tools`
  const launcher = launcherOf(s)
  const download = launcher ? `${launcher === 'npm' ? 'npm' : 'PyPI'} to download the package, then ` : ''
  return `starting ${path.basename(s.command ?? 'the program')} in the sandbox and waiting for ${download}its list of tools`
}

export class ControlService implements Api {
  private readonly edits: ServerEdits

  constructor(
    private readonly d: ServiceDeps,
    private readonly origin: DecisionOrigin = API_ORIGIN,
  ) {
    let edits = perCore.get(d)
    if (!edits) {
      // once per core, shared by every origin view (as()): the undo of a remove, one secret listener
      edits = new ServerEdits({ catalog: d.catalog, configPath: d.configPath, reloadConfig: () => d.reloadConfig() })
      perCore.set(d, edits)
      // names only: which secrets changed (the window refreshes its list and the store's warning)
      d.secrets.onChange((names) => d.events.emit('event', { type: 'secrets.changed', data: { names } } satisfies ApiEvent))
    }
    this.edits = edits
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
    return {
      version: VERSION,
      config_path: this.d.configPath,
      data_dir: this.d.dataDir,
      mcp_url: this.d.mcpUrl(),
      config_error: this.d.configError(),
      config_warnings: this.d.catalog.currentConfig.warnings,
      config_notes: this.d.catalog.currentConfig.notes,
      state_warning: this.d.catalog.store.warning,
      ...(this.d.catalog.currentConfig.organisation
        ? { policy: { file: this.d.catalog.currentConfig.organisation.file, error: this.d.catalog.currentConfig.organisation.error } }
        : {}),
      connect: connectSnippets(this.d.dataDir, { temporary: this.d.temporaryDataDir === true }),
      secrets: this.d.secrets.info(),
    }
  }

  async status(): Promise<StatusInfo> {
    const servers = this.d.catalog.currentConfig.servers.map((s) => this.serverInfo(s))
    const all = [...this.d.catalog.snapshot().byId.values()]
    const sum = summarizeServers(servers) // the same summary as the tray and the UI header
    return {
      version: VERSION,
      uptime_s: Math.round((Date.now() - this.d.startedAt) / 1000),
      servers: { total: sum.total, connected: sum.connected, quarantined: sum.quarantined, disabled: sum.disabled, error: sum.error },
      tools: { ...Catalog.counts(all, true), total: all.length },
      pending_approvals: sum.waiting,
    }
  }

  async servers() {
    return { servers: this.d.catalog.currentConfig.servers.map((s) => this.serverInfo(s)) }
  }

  private get inspectOffline(): Map<string, { message: string; launchHash: string }> {
    let m = OFFLINE_FAILURES.get(this.d)
    if (!m) OFFLINE_FAILURES.set(this.d, (m = new Map()))
    return m
  }

  private serverInfo(s: ServerConfig) {
    const info = serverInfo(this.d.catalog, this.d.manager.connections, s, (c) => this.d.oauth?.summary(c))
    if (!info.quarantined) return info
    const offline = this.inspectOffline.get(s.name)
    // a failure for want of network is about this launch: an edited entry starts over
    const failure = offline && offline.launchHash === info.launch_hash ? { offline_failure: offline.message } : {}
    return { ...info, inspect: { waits_for: inspectWaitsFor(s), timeout_s: Math.round(inspectTimeoutMs(s) / 1000), ...failure } }
  }

  private oauth(): OAuthService {
    if (!this.d.oauth) throw new ApiError('no_sign_in', 'this Toolgate cannot sign in to servers (it has no loopback listener for the redirect)', 409)
    return this.d.oauth
  }

  /** The entry with its ${secret:…}/${env:…} resolved (a sign-in goes to the URL the server connects to). */
  private authConfigOf(name: string): ServerConfig {
    const r = resolveReferences(this.configOf(name), { secret: (n) => this.d.secrets.get(n), env: process.env })
    if (!r.ok) throw new ApiError('missing_reference', `server "${name}": ${r.error}`, 409)
    return r.config
  }

  async signIn(name: string): Promise<SignInStart> {
    const s = this.authConfigOf(name)
    try {
      return await this.oauth().start(s)
    } catch (e) {
      if (e instanceof SignInError) throw new ApiError(e.code, e.message, e.code === 'failed' ? 502 : 409)
      throw e
    }
  }

  async authStatus(name: string): Promise<AuthStatus> {
    return this.oauth().status(this.authConfigOf(name))
  }

  async signOut(name: string): Promise<ActionResult> {
    return { ok: true, message: await this.oauth().signOut(this.authConfigOf(name)) }
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
    onlyOptionsOf(PROMPT_ACTION_OPTIONS, action, options)
    const { catalog } = this.d
    switch (action) {
      case 'approve':
        return this.decided(action, server, await approvePrompt(catalog, server, prompt, options.hash))
      case 'reject':
        return this.decided(action, server, await rejectPrompt(catalog, server, prompt, options.hash))
      case 'disable':
        return this.decided(action, server, await setPromptDisabled(catalog, server, prompt, true))
      case 'enable':
        return this.decided(action, server, await setPromptDisabled(catalog, server, prompt, false))
      default:
        throw new ApiError('unknown_action', `unknown prompt action "${String(action)}"; use enable, disable, approve or reject.`, 404)
    }
  }

  async resources(server: string): Promise<ResourceInfo> {
    const s = this.configOf(server)
    const empty = (note: string): ResourceInfo => ({ server, resources: [], templates: [], note })
    const lock = this.d.catalog.serverLock(s)
    if (lock)
      return empty(
        lock.status === 'server_disabled' ? 'The server is switched off.' : 'The server is in quarantine: its resources are listed once it is approved.',
      )
    const up = this.d.manager.get(server)
    if (!up || up.state !== 'connected') return empty('The server is not running now; its resources are listed while it runs.')
    if (!up.capabilities?.resources) return empty('This server offers no resources.')
    try {
      const got = await serverResources(up, Math.min(this.d.catalog.currentConfig.call_timeout_ms, 10_000))
      const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
      return {
        server,
        resources: got.resources.map((r) => ({
          uri: r.original,
          agent_uri: r.uri,
          name: text(r.name) ?? r.original,
          ...(text(r.title) ? { title: text(r.title) } : {}),
          ...(text(r.description) ? { description: text(r.description) } : {}),
          ...(text(r.mimeType) ? { mimeType: text(r.mimeType) } : {}),
          ...(typeof r.size === 'number' ? { size: r.size } : {}),
        })),
        templates: got.templates.map((t) => ({
          uriTemplate: t.original,
          agent_uri_template: t.uriTemplate,
          name: text(t.name) ?? t.original,
          ...(text(t.title) ? { title: text(t.title) } : {}),
          ...(text(t.description) ? { description: text(t.description) } : {}),
          ...(text(t.mimeType) ? { mimeType: text(t.mimeType) } : {}),
        })),
      }
    } catch (e) {
      return empty(`The server did not list its resources: ${(e as Error).message}`)
    }
  }

  async serverAction(name: string, action: ServerAction, options: ServerActionOptions = {}): Promise<ActionResult> {
    const s = this.configOf(name)
    const { catalog, manager } = this.d
    onlyOptionsOf(SERVER_ACTION_OPTIONS, action, options)
    const timed = timedAct(action, options.for)
    if (options.hash !== undefined) requireReviewedLaunch(catalog, s, options.hash)
    let message: string
    switch (action) {
      case 'enable':
      case 'disable':
        message = await setServerEnabled(catalog, { path: this.d.configPath, reload: () => this.d.reloadConfig() }, name, action === 'enable', timed)
        break
      case 'approve':
        message = await approveServer(catalog, name, timed, options.hash)
        if (!this.d.running)
          message = `Approved server ${name}${timed ? ` until ${timed.until}` : ''}. Toolgate is not running now: it starts the next time Toolgate runs (the app, \`toolgate serve\`, or a client's \`toolgate stdio\`).`
        manager.sync()
        break
      case 'quarantine':
        message = await quarantineServer(catalog, name)
        manager.sync()
        break
      case 'restart':
        if (!this.d.running) throw new ApiError('not_running', `Toolgate is not running, so ${name} is not either; it starts the next time Toolgate runs.`, 409)
        if (!(await manager.restart(name))) {
          throw new ApiError('not_running', `${name} is not running (${!s.enabled ? 'disabled' : 'quarantined'}); enable or approve it first.`, 409)
        }
        message = `Restarting ${name}.`
        break
      case 'inspect': {
        // Inspect runs the program: not one the organisation's policy blocks
        if (s.organisation?.blocked) throw organisationRefusal(`"${name}" may not run (${s.organisation.blocked})`)
        if (catalog.quarantineOf(s) === null && s.enabled) {
          message = await this.listApproved(name)
          break
        }
        message = await this.inspect(s, options.network === true)
        break
      }
      default:
        throw new ApiError('unknown_action', `unknown server action "${String(action)}"; use enable, disable, approve, quarantine, restart or inspect.`, 404)
    }
    return this.decided(action, name, message)
  }

  /**
   * Inspect of an approved server: its tools as it lists them now. A stopped on-demand server is
   * started for it, the very launch agents use, and stops again when idle.
   */
  private async listApproved(name: string): Promise<string> {
    const { manager } = this.d
    if (!this.d.running) return `${name} is approved; Toolgate is not running now, so the tools shown are the ones it last listed.`
    const wasRunning = manager.get(name)?.state === 'connected'
    const lease = await manager.acquire(name, { reason: 'inspect', waitMs: ON_DEMAND_WAIT_MS })
    if (!lease) return `${name} is approved; its tools are listed in the catalog.`
    try {
      const up = lease.up
      if (lease.stillStarting) return `${name} is still starting; its tools appear when it has listed them.`
      if (up.state !== 'connected') return `${name} could not be started to list its tools (${up.lastError ?? up.state}).`
      const n = up.tools?.length ?? 0
      if (wasRunning) return `${name} is approved and running; it lists ${n} tool(s), shown in the catalog.`
      const cfg = this.d.catalog.serverConfig(name) ?? lease.up.config
      const idle = idleStopSeconds(this.d.catalog.currentConfig, cfg)
      const stops = lifecycleOf(cfg) === 'on_demand' && idle > 0 ? ` It stops again after ${idle} s unused.` : ''
      return `Started ${name} to list its tools: it lists ${n} tool(s), shown in the catalog.${stops}`
    } finally {
      lease.release()
    }
  }

  /**
   * Starts a quarantined server once, sandboxed, to list its tools: no network unless asked, but
   * an npx/uvx server may reach its package registry (and nothing else) to download itself.
   */
  private async inspect(s: ServerConfig, network: boolean): Promise<string> {
    const { catalog } = this.d
    const name = s.name
    const stdio = usesStdio(s)
    const support = sandboxSupport()
    const registry = stdio && !network ? registryAccess(launcherOf(s)) : null
    const how = !stdio
      ? ''
      : !support.available
        ? ` It ran NOT isolated, with your full rights (${support.reason}).`
        : network
          ? ' It ran isolated, with network access.'
          : registry
            ? ` It ran isolated; its only network was ${registry.label}, to download its package.`
            : ' It ran isolated, without network access.'
    try {
      const tools = await inspectUpstream(s, {
        logger: this.d.logger.child({ server: name, inspect: true }),
        limits: this.d.manager.limits(),
        network,
        ...(this.d.oauth ? { oauth: this.d.oauth } : {}),
        sandbox: { ctx: { dataDir: this.d.dataDir, configPath: this.d.configPath }, mode: 'inspect' },
        launchCheck: (resolved) => this.d.manager.launchCheck(resolved),
        references: { secret: (n) => this.d.secrets.get(n), env: process.env },
      })
      catalog.setLiveTools(name, tools, 'inspect')
      this.inspectOffline.delete(name)
      return `Inspected ${name}: it offers ${tools.length === 1 ? '1 tool' : `${tools.length} tools`}; the process was stopped again.${how} Review them, then approve the server.`
    } catch (e) {
      const signIn = needsSignIn(e)
      if (signIn) {
        throw new ApiError(
          'needs_auth',
          `${name} needs sign-in before Inspect can list its tools (${signIn.reason}): sign in (Sign in in the window, or \`toolgate auth login ${name}\`), then Inspect again.`,
          409,
        )
      }
      const why = `could not inspect ${name}: ${(e as Error).message}`
      // only a failure about the network offers the network (not `spawn uvx ENOENT`, a missing secret, a crash)
      if (stdio && support.available && !network && looksLikeNetworkFailure((e as Error).message)) {
        const reach = registry ? `lets it reach only ${registry.label}` : 'runs a server without network access'
        const message =
          `${why}. Inspect ${reach}. If it needs more of the network to start, use Inspect with network ` +
          `(\`toolgate servers inspect ${name} --network\`): that lets this unreviewed server reach the network.`
        this.inspectOffline.set(name, { message, launchHash: serverInfo(catalog, this.d.manager.connections, s).launch_hash })
        this.d.events.emit('event', { type: 'servers.changed', data: { servers: [name] } } satisfies ApiEvent)
        throw new ApiError('inspect_failed_offline', message, 502)
      }
      if (!network) this.inspectOffline.delete(name)
      throw new ApiError('inspect_failed', why, 502)
    }
  }

  async toolAction(server: string, tool: string, action: ToolAction, options: ToolActionOptions = {}): Promise<ActionResult> {
    this.configOf(server)
    const { catalog } = this.d
    onlyOptionsOf(TOOL_ACTION_OPTIONS, action, options)
    const timed = timedAct(action, options.for)
    switch (action) {
      case 'approve':
        return this.decided(action, server, await approveTool(catalog, server, tool, timed, options.hash), tool)
      case 'reject':
        return this.decided(action, server, await rejectTool(catalog, server, tool, options.hash), tool)
      case 'disable':
        return this.decided(action, server, await setToolDisabled(catalog, server, tool, true), tool)
      case 'enable':
        return this.decided(action, server, await setToolDisabled(catalog, server, tool, false, timed), tool)
      default:
        throw new ApiError('unknown_action', `unknown tool action "${String(action)}"; use enable, disable, approve or reject.`, 404)
    }
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
    const r = await this.d.requests.grant(id, g, options.hash)
    this.answered('grant', r)
    return { ok: true, ...r }
  }

  async denyRequest(id: string): Promise<RequestActionResult> {
    const r = await this.d.requests.deny(id)
    this.answered('deny', r)
    return { ok: true, ...r }
  }

  /** An answer to an agent's request, on the record under the agent that asked (its `?agent=` and its recent activity). */
  private answered(action: 'grant' | 'deny', r: { request: AccessRequest; message: string }): void {
    const q = r.request
    this.d.activity.decision(this.origin, { agent: q.agent, client: q.client }, { action, server: q.server, tool: q.tool, message: r.message })
  }

  async confirmations(filter: ConfirmationFilter = {}): Promise<{ confirmations: Confirmation[] }> {
    return { confirmations: this.d.confirmations.list(filter) }
  }

  /** Where this service answers from (window, tray, CLI, web UI, API): the confirmation and the activity record say so. */
  private get confirmVia(): ConfirmVia {
    const v = this.origin.via
    return (CONFIRM_VIA as readonly string[]).includes(v) ? (v as ConfirmVia) : 'api'
  }

  async allowConfirmation(id: string): Promise<ConfirmationActionResult> {
    return this.confirmationAnswered('allow', this.d.confirmations.allow(id, this.confirmVia))
  }

  async denyConfirmation(id: string): Promise<ConfirmationActionResult> {
    return this.confirmationAnswered('deny', this.d.confirmations.deny(id, this.confirmVia))
  }

  /** The answer to a waiting call, on the record under the agent that called (the call itself is recorded by the call path). */
  private confirmationAnswered(action: 'allow' | 'deny', r: { confirmation: Confirmation; message: string }): ConfirmationActionResult {
    const c = r.confirmation
    this.d.activity.decision(
      this.origin,
      { agent: c.agent, client: c.client },
      { action, server: c.server, tool: c.tool.slice(c.server.length + 1), message: r.message, args_hmac: c.args_hmac },
    )
    return { ok: true, ...r }
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
