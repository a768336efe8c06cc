// The composition root: buildCore wires config, state, catalog, upstreams, discovery, requests,
// the agent server's parts and the control service without starting anything; start() then
// upgrades the state, watches the files, starts the timers, listens (optionally: the loopback
// HTTP listener) and starts the upstreams. The tray app, `serve` and an embedded `stdio` all run
// startCore (both steps); the in-process tests use buildCore, the same wiring.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import type { Config, ServerConfig } from '../../shared/config-schema'
import { Catalog } from './catalog/catalog'
import { finishStateUpgrade, pinFailClosedServers } from './catalog/server-decisions'
import { skippedMessage } from './config/load'
import { StateStore } from './state/store'
import { argsKey } from './state/data-keys'
import { LastCatalogWriter, loadLastCatalog, readLastCatalog } from './state/last-catalog'
import { DataDirLock, instanceKeyPath, readLiveInstance, writeInstanceKey } from './state/lock'
import { DiscoveryStats } from './discovery/stats'
import { UpstreamManager } from './upstream/manager'
import { lifecycleMessage } from './upstream/lifecycle'
import { ControlService } from './control/service'
import { ControlEvents } from './control/events'
import { ActivityRecorder, storeLimits, NOBODY } from './activity/recorder'
import { ActivityStore } from './activity/store'
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
import { createLogger } from './log'
import { appRoot, DEFAULT_LISTEN, resolveApiKey, resolveConfigPath, resolveDataDir } from './paths'
import { VERSION } from './version'
import { startEgressProxy } from './upstream/sandbox'
import { probeSandbox } from './upstream/sandbox/self-test'
import { sweepOrphanedPasta } from './upstream/sandbox/orphans'
import { setupRequests } from './requests'
import { SecretStore } from './secrets/store'
import { resolveReferences } from './secrets/resolve'
import { OAuthService } from './oauth/service'
import { LiveConfig } from './composition/live-config'
import { requestRecords } from './composition/request-records'
import { OwnerExistsError, type BuiltCore, type Core, type CoreOptions } from './composition/shape'

export { OwnerExistsError, type BuiltCore, type Core, type CoreOptions } from './composition/shape'

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
  // the user's config as written, and the effective one (the organisation's policy applied);
  // a file that does not parse or whose mistake is outside a server entry throws ConfigError: the CLI exits 2
  const live = new LiveConfig(configPath, opts.lenientConfig === true)
  const logger = opts.logger ?? createLogger({ dataDir, stderr: opts.logToStderr !== false })
  live.logPolicy(logger)

  const lock = DataDirLock.tryAcquire(dataDir)
  if (!lock) throw new OwnerExistsError(readLiveInstance(dataDir), dataDir)
  const startedAt = Date.now()
  try {
    const store = new StateStore(path.join(dataDir, 'state.json'))
    if (store.warning) logger.warn(store.warning)
    if (live.current.warnings.length) logger.warn(`${configPath}: ignoring unknown key(s) ${live.current.warnings.join(', ')} (typo?)`)
    for (const n of live.current.notes) logger.warn(`${configPath}: ${n}`)
    if (live.current.skipped.length) logger.error(`${configPath}: ${skippedMessage(live.current.skipped)}`)
    const catalog = new Catalog(live.current, store)
    const tokens = new AgentTokens(store, () => live.current.agents, configPath)
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
    applyLearning(live.current)
    // nothing starts before start(): sync() waits for it
    const manager = new UpstreamManager(catalog, logger, { dataDir, configPath }, { offline, deferred: true })
    const events = new ControlEvents(catalog, manager.connections)
    const emit = events.emitEvent.bind(events)
    const activity = new ActivityRecorder(new ActivityStore(path.join(dataDir, 'activity'), storeLimits(live.current.activity)), {
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

    // a new config reaches every part (live-config.ts: reloads, the policy, the operator's decisions)
    live.attach({
      logger,
      emit,
      // a removed server's sign-in ends, whoever removed it (the window, the CLI, an agent, the file)
      retire: (before, next) => {
        for (const s of before.servers)
          if (!next.servers.some((n) => n.name === s.name) && !next.skipped.some((n) => n.name === s.name)) oauth.endSignIn(s.name, resolved(s))
      },
      apply: (next) => {
        catalog.setConfig(next)
        applyLearning(next)
        activity.setConfig(next.activity)
        manager.sync()
        forgetRemovedAgents()
        adminKey = resolveAdminKey()
      },
      operatorDecision: (d) => activity.decision({ by: 'operator', via: 'config' }, NOBODY, d),
    })
    const reloadConfig = (): void => live.reloadOwnWrite()

    // The admin key follows the config: a new api_key takes effect on reload and the old one stops working.
    const resolveAdminKey = (): { key: string; file: string | null } => {
      const r = resolveApiKey(dataDir, live.current.api_key, true)
      return { key: r.key ?? randomBytes(24).toString('base64url'), file: r.file }
    }
    let adminKey = resolveAdminKey()
    // A per-instance admin credential, readable only by this user: local CLI commands and stdio
    // bridges authenticate with it whatever the configured key is (env, config or file).
    const instanceKey = writeInstanceKey(dataDir)

    // ask_in_client: the organisation's policy, the operator's config and the user's switch, read on every question
    const askInClient = new AskInClientSwitch(catalog)
    const scopeForAgent = (name: string | undefined): Scope => (name ? liveAgentScope(() => live.current.agents, name, configPath, askInClient.of) : FULL_SCOPE)
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
      // what requests put on the activity record by themselves (request-records.ts)
      ...requestRecords(activity),
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
      configProblem: () => live.reloadError,
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
      configError: () => live.problem(),
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
      const orphans = oauth.endSignInsNotIn([...live.current.servers, ...live.current.skipped].map((s) => s.name))
      if (orphans.length) logger.info({ servers: orphans }, 'ended the sign-ins of servers no longer in the config')
      // the file's edits and the organisation's policy changes apply (live-config.ts)
      live.watch()
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
          listen: opts.listen ?? live.current.listen ?? DEFAULT_LISTEN,
          fallbackPort: opts.fallbackPort === true,
          agentDeps,
          listChanged,
          scopeForAgent,
          sessionLimits: () => ({ idleMs: live.current.limits.session_idle_s * 1000, maxPerPrincipal: live.current.limits.max_sessions_per_principal }),
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
        await live.close()
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
      configFileChanged: () => live.fileChanged(),
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
