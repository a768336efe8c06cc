// The composition root: buildCore wires config, state, catalog, upstreams, discovery, requests,
// the agent server's parts and the control service without starting anything; start() then
// upgrades the state, watches the files, starts the timers, listens (optionally: the loopback
// HTTP listener) and starts the upstreams. The tray app, `serve` and an embedded `stdio` all run
// startCore (both steps); the in-process tests use buildCore, the same wiring.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import type { AppInfo } from '../../shared/api'
import { ApiError } from '../../shared/api'
import type { Config, ServerConfig } from '../../shared/config-schema'
import { Catalog } from './catalog/catalog'
import { finishStateUpgrade, pinFailClosedServers } from './catalog/decisions'
import { loadConfigFile, skippedMessage, type ConfigError } from './config/load'
import { configReloader, type ConfigWatcher } from './config/watch'
import { applyPolicy, policyLocation, readPolicy, type PolicyState } from './config/policy'
import { watchPolicy } from './config/policy-watch'
import { StateStore } from './state/store'
import { argsKey } from './state/data-keys'
import { LastCatalogWriter, loadLastCatalog, readLastCatalog } from './state/last-catalog'
import { DataDirLock, instanceKeyPath, readLiveInstance, writeInstanceKey, type Instance } from './state/lock'
import { DiscoveryStats } from './discovery/stats'
import { UpstreamManager } from './upstream/manager'
import { lifecycleMessage } from './upstream/lifecycle'
import { ControlService } from './control/service'
import { questionRecordOf } from './control/answers'
import { ControlEvents } from './control/events'
import type { DecisionOrigin } from '../../shared/activity'
import { ActivityRecorder, storeLimits, NOBODY } from './activity/recorder'
import { ActivityStore } from './activity/store'
import { configDecisions } from './activity/config-decisions'
import type { AgentDeps } from './agent-server/mcp-server'
import { askCodec as askCodecFor, ASK_STATE_TTL_S } from './agent-server/in-client'
import { RelayCalls } from './agent-server/relay-asks'
import { LearnedStore } from './search/learned-store'
import { FULL_SCOPE, liveAgentScope, noScope, type Scope } from './access/scope'
import { AskInClientSwitch } from './agents-view/ask-in-client'
import { AgentTokens } from './agent-server/tokens'
import { ListChangedHub } from './agent-server/list-changed'
import type { RunningHttp } from './http/server'
import { listenHttp } from './http/listen'
import { createLogger, type Logger } from './log'
import { appRoot, DEFAULT_LISTEN, resolveApiKey, resolveConfigPath, resolveDataDir } from './paths'
import { VERSION } from './version'
import { startEgressProxy } from './upstream/sandbox'
import { probeSandbox } from './upstream/sandbox/self-test'
import { sweepOrphanedPasta } from './upstream/sandbox/orphans'
import { setupRequests, type RequestsSetup } from './requests'
import { SecretStore, type SecretSealer } from './secrets/store'
import type { Keychain } from './secrets/keychain'
import { resolveReferences } from './secrets/resolve'
import { OAuthService } from './oauth/service'

export interface CoreOptions {
  configPath?: string
  dataDir?: string
  listen?: string
  /** serve /mcp, /api/v1 and the web UI on loopback */
  serveHttp: boolean
  /**
   * When the listen address is taken, listen on an ephemeral loopback port instead of failing
   * (an embedded stdio owner: instance.json records where it listens; `toolgate open` finds it)
   */
  fallbackPort?: boolean
  kind?: Instance['kind']
  logToStderr?: boolean
  logger?: Logger
  /** directory of the built web UI */
  staticDir?: string | null
  /**
   * Start no upstream at all, and show the last known catalog (<data-dir>/catalog.json): the
   * operator commands while nothing owns the data dir.
   */
  offline?: boolean
  /** the app's Electron safeStorage, sealing the secret store's key (docs/secrets.md) */
  secretSealer?: SecretSealer | null
  /**
   * A mistake inside a server entry leaves that server out instead of refusing to start (`toolgate
   * stdio`: a client must not lose every tool over one typo); the window and agents are told.
   */
  lenientConfig?: boolean
  /** the data dir is deleted when this process exits (`toolgate demo`): the window's connect snippets say so */
  temporaryDataDir?: boolean
  /**
   * The OS keychain holding the secret store's key. Left out: the platform's (docs/secrets.md);
   * null: none, the 0600 key file in the data dir (the in-process tests).
   */
  keychain?: Keychain | null
}

export class OwnerExistsError extends Error {
  constructor(
    readonly instance: Instance | null,
    dataDir: string,
  ) {
    super(
      `another Toolgate (pid ${instance?.pid ?? '?'}${instance?.url ? `, ${instance.url}` : ''}) already owns ${dataDir}; stop it first or use another --data-dir`,
    )
  }
}

export interface Core {
  api: ControlService
  /** the Api with decisions recorded as made from `origin` (window, tray, …) */
  apiFor(origin: DecisionOrigin): ControlService
  activity: ActivityRecorder
  info: AppInfo
  url: string | null
  dataDir: string
  configPath: string
  catalog: Catalog
  logger: Logger
  agentDeps: AgentDeps
  /** the secret store (the user's secrets; `namespace()` for other features' values) */
  secrets: SecretStore
  /** the configured admin key and the file it lives in (null when it came from env or config) */
  adminKey: { key: string; file: string | null }
  /** this instance's own admin key (the one in <data-dir>/instance.key) */
  instanceKey: string
  /** a live scope: narrowing or removing the agent in the config applies to it at once */
  scopeForAgent(name: string | undefined): Scope
  /** resolves when every running upstream has connected or failed */
  settled(timeoutMs?: number): Promise<void>
  createAgentToken(agent: string): Promise<string>
  /** forgets what retrieve_tools learned from agents' calls; returns the number of records */
  forgetLearned(): Promise<number>
  stop(): Promise<void>
}

/**
 * The core's object graph, built and not started: the data dir is owned (its lock taken) and the
 * files read, and nothing is spawned, listened on, watched or timed. Everything an agent or the
 * window reaches is here and works (the in-process tests drive it); upstreams start, the state
 * upgrade finishes and expired grants end only in start().
 */
export interface BuiltCore extends Omit<Core, 'url'> {
  store: StateStore
  manager: UpstreamManager
  /** the control API's event stream (servers/tools.changed, requests, activity, config) */
  events: ControlEvents
  stats: DiscoveryStats
  tokens: AgentTokens
  /** access requests, the grant keeper and the confirmations of risky calls */
  requests: RequestsSetup
  /** Toolgate wrote the config itself: reload it (the edit is the user's decision, already recorded) */
  reloadConfig(): void
  /** The config file changed on disk: reload it as the watcher does (the edit is the operator's decision) */
  configFileChanged(): void
  /** Starts the built core (once): upgrades the state, watches, listens, starts upstreams. */
  start(): Promise<Core>
}

/** Builds and starts the core: what the tray app, `serve` and `stdio` run. */
export async function startCore(opts: CoreOptions): Promise<Core> {
  // the sandbox's self-tests (pasta's alone waits ~0.1–0.3 s) run while the core is built
  const probes = probeSandbox()
  let built: BuiltCore
  try {
    built = buildCore(opts)
  } catch (e) {
    // (not gone before they end: pasta stopped during its setup would leave its namespace child behind)
    await probes
    throw e
  }
  try {
    return await built.start()
  } catch (e) {
    await built.stop()
    throw e
  }
}

/** Builds the core's object graph over a data dir without starting it (see BuiltCore). */
export function buildCore(opts: CoreOptions): BuiltCore {
  const dataDir = resolveDataDir(opts.dataDir)
  const configPath = resolveConfigPath(dataDir, opts.configPath)
  // the user's config as written, and the effective one (the organisation's policy applied)
  const lenient = opts.lenientConfig === true
  // a file that does not parse or whose mistake is outside a server entry throws ConfigError: the CLI exits 2
  const loaded = loadConfigFile(configPath, { lenient })
  let userConfig: Config = loaded.config
  let policy: PolicyState | null = readPolicy(policyLocation())
  let config: Config = applyPolicy(userConfig, policy)
  const logger = opts.logger ?? createLogger({ dataDir, stderr: opts.logToStderr !== false })
  const logPolicy = (p: PolicyState | null): void => {
    if (!p) return
    if (p.error) logger.error({ file: p.file }, `your organisation's policy file cannot be used, so no server runs until it is fixed: ${p.error}`)
    else logger.info({ file: p.file }, "your organisation's policy applies")
  }
  logPolicy(policy)

  const lock = DataDirLock.tryAcquire(dataDir)
  if (!lock) throw new OwnerExistsError(readLiveInstance(dataDir), dataDir)
  const startedAt = Date.now()
  try {
    const store = new StateStore(path.join(dataDir, 'state.json'))
    if (store.warning) logger.warn(store.warning)
    if (config.warnings.length) logger.warn(`${configPath}: ignoring unknown key(s) ${config.warnings.join(', ')} (typo?)`)
    for (const n of config.notes) logger.warn(`${configPath}: ${n}`)
    if (config.skipped.length) logger.error(`${configPath}: ${skippedMessage(config.skipped)}`)
    const catalog = new Catalog(config, store)
    const tokens = new AgentTokens(store, () => config.agents, configPath)
    const forgetRemovedAgents = (): void =>
      void tokens.forgetRemovedAgents().then(
        (gone) => gone.length && logger.info({ agents: gone }, 'revoked the tokens of agents no longer in the config'),
        (e: unknown) => logger.error({ err: String(e) }, 'could not revoke the tokens of removed agents'),
      )
    const offline = opts.offline === true
    const stats = new DiscoveryStats()
    const learned = new LearnedStore(path.join(dataDir, 'search-learned.json'), logger)
    const applyLearning = (c: Config): void => {
      learned.enabled = c.search.learn
      catalog.index.setLearned(c.search.learn ? learned.use : null)
    }
    applyLearning(config)
    // nothing starts before start(): sync() waits for it
    const manager = new UpstreamManager(catalog, logger, { dataDir, configPath }, { offline, deferred: true })
    const events = new ControlEvents(catalog, manager.connections)
    const emit = events.emitEvent.bind(events)
    const activity = new ActivityRecorder(new ActivityStore(path.join(dataDir, 'activity'), storeLimits(config.activity)), {
      config: () => catalog.currentConfig.activity,
      emit: (event) => emit({ type: 'activity', data: event }),
      logger,
      argsKey: argsKey(dataDir),
    })
    manager.attachLifecycle((c) => activity.lifecycle(c.kind === 'start' && c.by ? c.by : NOBODY, { ...c, message: lifecycleMessage(c) }))
    const secrets = new SecretStore({ dataDir, sealer: opts.secretSealer ?? null, ...(opts.keychain !== undefined ? { keychain: opts.keychain } : {}) })
    const detachSecrets = manager.attachSecrets(secrets)
    const secretWarning = secrets.info().warning
    if (secretWarning) logger.warn(secretWarning)
    let http: RunningHttp | null = null
    // a server entry with its ${secret:…}/${env:…} resolved; null when it cannot be (a store that does not open included)
    const resolved = (s: ServerConfig | undefined): ServerConfig | null => {
      try {
        const r = s ? resolveReferences(s, { secret: (n) => secrets.get(n), env: process.env }) : null
        return r?.ok ? r.config : null
      } catch {
        return null
      }
    }
    // OAuth sign-in of HTTP servers: tokens in the secret store's "oauth" namespace, the browser's
    // redirect back to this process's loopback listener (docs/remote-servers.md)
    const oauth = new OAuthService({
      slots: secrets.namespace('oauth'),
      storedIn: () => `the secret store (${secrets.info().protected_by})`,
      logger,
      listenerUrl: () => http?.url ?? null,
      serverConfig: (name) => resolved(catalog.serverConfig(name)),
    })
    const detachOAuth = manager.attachOAuth(oauth)
    // a sign-in started, ended or failed: the window shows the server's sign-in state
    oauth.on('changed', (server) => events.serversChanged([server]))

    let configError: string | null = null
    const applyConfig = (next: Config): void => {
      // a removed server's sign-in ends, whoever removed it (the window, the CLI, an agent, the file)
      for (const s of config.servers)
        if (!next.servers.some((n) => n.name === s.name) && !next.skipped.some((n) => n.name === s.name)) oauth.endSignIn(s.name, resolved(s))
      config = next
      configError = null
      catalog.setConfig(next)
      applyLearning(next)
      activity.setConfig(next.activity)
      manager.sync()
      forgetRemovedAgents()
      adminKey = resolveAdminKey()
      logger.info({ servers: next.servers.length }, 'config loaded')
      if (next.warnings.length) logger.warn(`${configPath}: ignoring unknown key(s) ${next.warnings.join(', ')} (typo?)`)
      for (const n of next.notes) logger.warn(`${configPath}: ${n}`)
      emit({ type: 'config.reloaded', data: { servers: next.servers.map((s) => s.name) } })
    }
    const onConfigError = (err: ConfigError): void => {
      configError = err.message
      logger.error({ file: err.file, path: err.jsonPath }, `config error, keeping the last good config: ${err.message}`)
      emit({ type: 'config.error', data: { message: err.message, file: err.file, path: err.jsonPath } })
    }
    // An edit of the file by the operator: each change is their decision. Toolgate's own writes
    // (the user's decisions, already recorded) reload through reloadConfig.
    let ownWrite = false
    const onConfig = (next: Config): void => {
      if (!ownWrite) for (const d of configDecisions(userConfig, next)) activity.decision({ by: 'operator', via: 'config' }, NOBODY, d)
      userConfig = next
      applyConfig(applyPolicy(next, policy))
    }
    // the text just loaded is the reloader's starting point: a server entry left out at start is not reported again as a reload error
    const reloader = configReloader(configPath, { onConfig, onError: onConfigError }, { initialText: loaded.text, lenient })
    // Toolgate's own config writes reload here, and the watch's event that follows finds nothing new: one edit, one reload.
    const reloadConfig = (): void => {
      ownWrite = true
      try {
        reloader.reloadNow()
      } finally {
        ownWrite = false
      }
    }

    // The admin key follows the config: a new api_key takes effect on reload and the old one stops working.
    const resolveAdminKey = (): { key: string; file: string | null } => {
      const r = resolveApiKey(dataDir, config.api_key, true)
      return { key: r.key ?? randomBytes(24).toString('base64url'), file: r.file }
    }
    let adminKey = resolveAdminKey()
    // A per-instance admin credential, readable only by this user: local CLI commands and stdio
    // bridges authenticate with it whatever the configured key is (env, config or file).
    const instanceKey = writeInstanceKey(dataDir)

    // ask_in_client: the organisation's policy, the operator's config and the user's switch, read on every question
    const askInClient = new AskInClientSwitch(catalog)
    const scopeForAgent = (name: string | undefined): Scope => (name ? liveAgentScope(() => config.agents, name, configPath, askInClient.of) : FULL_SCOPE)
    // a request is answered with the scope its agent has now; an agent removed from the config has none
    const scopeOrNone = (agent: string | null): Scope => {
      try {
        return scopeForAgent(agent ?? undefined)
      } catch {
        return noScope(agent)
      }
    }
    const requestsSetup = setupRequests({
      catalog,
      configPath,
      reloadConfig,
      syncUpstreams: () => manager.sync(),
      emit,
      logger,
      scopeFor: scopeOrNone,
      // an answer given at the agent's own client (ask_in_client) is on the record like the window's
      onClientAnswer: (req, action, message) =>
        activity.decision({ by: 'user', via: 'client' }, { agent: req.agent, client: req.client }, { action, server: req.server, tool: req.tool, message }),
      // a server's question nobody answered in time: the server got "cancel" (an answer is recorded where it is given)
      onQuestion: (q) => {
        if (q.status !== 'timeout') return
        activity.decision(
          { by: 'toolgate', via: 'timer' },
          { agent: q.agent, client: q.client },
          {
            action: 'cancel',
            server: q.server,
            tool: q.tool.slice(q.server.length + 1),
            message: `Nobody answered the question of server "${q.server}" in time; the server got "cancel".`,
            question: questionRecordOf(q),
          },
        )
      },
      // the end of a grant is on the record (a used "Allow once" pass is: it is the call)
      onEnd: (end, why) => {
        if (why !== 'expired') return
        const g = end.grant
        activity.decision(
          { by: 'toolgate', via: 'timer' },
          { agent: g.agent ?? null, client: null },
          { action: 'expire', server: g.server, ...(g.tool ? { tool: g.tool } : {}), message: end.message },
        )
      },
    })
    const { keeper, requests, confirmations, questions } = requestsSetup
    // questions asked in a 2026-07-28 client carry a requestState signed with a key derived from the instance key
    const askCodec = askCodecFor(instanceKey, ASK_STATE_TTL_S)
    const listChanged = new ListChangedHub(catalog)
    manager.attachResourcesListChanged((server) => listChanged.resourcesChanged(server))
    const relays = new RelayCalls(askCodec)
    const agentDeps: AgentDeps = {
      catalog,
      manager,
      stats,
      logger,
      configPath,
      reloadConfig,
      learned,
      requests,
      keeper,
      activity,
      confirmations,
      questions,
      askCodec,
      configProblem: () => configError,
      listChanged,
      relays,
    }
    const forgetLearned = (): Promise<number> => learned.clear()
    const api = new ControlService({
      temporaryDataDir: opts.temporaryDataDir === true,
      catalog,
      manager,
      stats,
      logger,
      events,
      configPath,
      dataDir,
      secrets,
      startedAt,
      reloadConfig,
      running: !offline,
      mcpUrl: () => (http ? `${http.url}/mcp` : null),
      // a reload that failed, else the entries left out at start (until the file is fixed)
      configError: () => configError ?? (config.skipped.length ? `${configPath}: ${skippedMessage(config.skipped)}` : null),
      tokens,
      requests,
      activity,
      oauth,
      confirmations,
      questions,
      askInClient,
    })

    const createAgentToken = async (agent: string): Promise<string> => (await tokens.create(agent)).token

    // what start() starts, for stop()
    let watcher: ConfigWatcher | null = null
    let policyWatcher: { close(): Promise<void> } | null = null
    let stopWatchingState = async (): Promise<void> => undefined
    let lastCatalog: LastCatalogWriter | null = null
    let selfTestRun: Promise<unknown> | null = null

    const start = async (): Promise<void> => {
      // bubblewrap's and pasta's self-tests, once per process (startCore began them while it built
      // the core): they run while the state, catalog and watchers are set up, and end before the listener
      const selfTest = probeSandbox()
      selfTestRun = selfTest
      stopWatchingState = store.watchForLoss((file, how) =>
        logger.warn(
          how === 'deleted'
            ? `${file} disappeared while Toolgate ran; it was written again from memory`
            : `${file} was changed behind Toolgate's back while it ran; it was written again from memory (the decisions Toolgate holds are kept)`,
        ),
      )
      await finishStateUpgrade(catalog)
      await pinFailClosedServers(catalog)
      forgetRemovedAgents()
      // the last known tool lists: offline commands show them; an owner answers search and listings
      // from them while on-demand servers are stopped (nothing has to start to be found)
      const last = readLastCatalog(dataDir)
      if (last) loadLastCatalog(catalog, last, offline ? 'all' : 'listed-by-server')
      lastCatalog = offline ? null : new LastCatalogWriter(dataDir, catalog, logger)
      // a server removed while Toolgate was not running: its sign-in ends now (docs/remote-servers.md)
      // an entry left out for a mistake in it is not removed: its sign-in stays
      const orphans = oauth.endSignInsNotIn([...config.servers, ...config.skipped].map((s) => s.name))
      if (orphans.length) logger.info({ servers: orphans }, 'ended the sign-ins of servers no longer in the config')
      watcher = reloader.watch()
      // the organisation's policy changes apply like a config edit (a policy that becomes invalid blocks every server)
      policyWatcher = watchPolicy(policy, (next) => {
        policy = next
        logPolicy(next)
        if (!next) logger.info("your organisation's policy file is gone; the user's config applies as written")
        applyConfig(applyPolicy(userConfig, policy))
      })
      // grants that ended while Toolgate was stopped end now, before any agent or upstream is served
      await keeper.start()

      const { sandbox, net } = await selfTest
      if (sandbox.available) logger.info({ sandbox: sandbox.mechanism, binary: sandbox.binary }, 'stdio upstreams run isolated')
      else logger.warn(`stdio upstreams are NOT isolated: ${sandbox.reason}`)
      if (net && !net.available) logger.warn(`sandboxed servers with network on share this machine's network: ${net.reason}`)
      if (net?.available) {
        const swept = sweepOrphanedPasta(dataDir)
        if (swept.length) logger.warn({ pids: swept }, `killed ${swept.length} pasta helper(s) an earlier run left behind when it was killed`)
      }
      if (sandbox.available) await startEgressProxy() // the one way out of a server with an allowlist (sandbox.network: [hosts])
      if (opts.serveHttp) {
        http = await listenHttp({
          listen: opts.listen ?? config.listen ?? DEFAULT_LISTEN,
          fallbackPort: opts.fallbackPort === true,
          agentDeps,
          listChanged,
          scopeForAgent,
          sessionLimits: () => ({ idleMs: config.limits.session_idle_s * 1000, maxPerPrincipal: config.limits.max_sessions_per_principal }),
          api,
          apiKeys: () => [adminKey.key, instanceKey],
          agentToken: (presented) => tokens.authenticate(presented),
          createAgentToken,
          forgetLearned,
          apiFor: (origin) => api.as(origin),
          oauthCallback: (params) => oauth.callback(params),
          staticDir: opts.staticDir === undefined ? path.join(appRoot(), 'out', 'renderer') : opts.staticDir,
          logger,
        })
      }
      const url = http?.url ?? null
      lock.writeInstance({
        pid: process.pid,
        url,
        mcp_url: url ? `${url}/mcp` : null,
        started_at: new Date(startedAt).toISOString(),
        version: VERSION,
        kind: opts.kind ?? 'serve',
        api_key_file: instanceKeyPath(dataDir),
      })

      manager.start()
    }

    let stopping: Promise<void> | null = null
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        keeper.stop()
        requests.close()
        confirmations.close()
        questions.close()
        listChanged.close()
        await watcher?.close()
        await policyWatcher?.close()
        await stopWatchingState()
        detachSecrets()
        await oauth.settle()
        detachOAuth()
        // Upstreams first: calls in flight are answered with a clear error before the listener closes.
        await manager.stopAll()
        await lastCatalog?.close()
        await http?.close()
        await store.settle()
        await learned.flush()
        activity.close()
        // a start that failed while pasta's self-test ran: pasta stopped during its setup would leave its namespace child behind
        await selfTestRun
        lock.release()
        logger.flush?.()
      })()
      return stopping
    }

    const built: BuiltCore = {
      api,
      apiFor: (origin) => api.as(origin),
      activity,
      get info() {
        return api.infoNow()
      },
      get adminKey() {
        return adminKey
      },
      instanceKey,
      dataDir,
      configPath,
      catalog,
      store,
      manager,
      events,
      stats,
      tokens,
      requests: requestsSetup,
      logger,
      agentDeps,
      secrets,
      scopeForAgent,
      reloadConfig,
      configFileChanged: () => reloader.reloadNow(),
      settled: (timeoutMs = 30000) => manager.settled(timeoutMs),
      createAgentToken,
      forgetLearned,
      stop,
      start: async () => {
        if (starting) throw new Error('this core was started already; build another to start again')
        starting = true
        await start()
        // the started core: the same parts, and the listener's address
        return {
          api,
          apiFor: built.apiFor,
          activity,
          get info() {
            return api.infoNow()
          },
          get adminKey() {
            return adminKey
          },
          instanceKey,
          url: http?.url ?? null,
          dataDir,
          configPath,
          catalog,
          logger,
          agentDeps,
          secrets,
          scopeForAgent,
          settled: built.settled,
          createAgentToken,
          forgetLearned,
          stop,
        }
      },
    }
    let starting = false
    return built
  } catch (e) {
    lock.release()
    throw e
  }
}
