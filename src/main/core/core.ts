// The composition root: buildCore wires config, state, catalog, upstreams, discovery, requests,
// the agent server's parts and the control service without starting anything; its start() and
// stop() run them (composition/run.ts). The tray app, `serve` and an embedded `stdio` all run
// startCore (both steps); the in-process tests use buildCore, the same wiring.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import type { Config, ServerConfig } from '../../shared/config-schema'
import { Catalog } from './catalog/catalog'
import { skippedMessage } from './config/load'
import { StateStore } from './state/store'
import { argsKey } from './state/data-keys'
import { DataDirLock, readLiveInstance, writeInstanceKey } from './state/lock'
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
import { listenHttp } from './http/listen'
import { createLogger } from './log'
import { appRoot, DEFAULT_LISTEN, resolveApiKey, resolveConfigPath, resolveDataDir } from './paths'
import { probeSandbox } from './upstream/sandbox/self-test'
import { setupRequests } from './requests'
import { SecretStore } from './secrets/store'
import { resolveReferences } from './secrets/resolve'
import { OAuthService } from './oauth/service'
import { LiveConfig } from './composition/live-config'
import { requestRecords } from './composition/request-records'
import { CoreRun } from './composition/run'
import { OwnerExistsError, startedCore, type BuiltCore, type Core, type CoreOptions } from './composition/shape'

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
      listenerUrl: (): string | null => run.url,
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
      mcpUrl: (): string | null => (run.url ? `${run.url}/mcp` : null),
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

    // start() and stop(), in their order (run.ts)
    const run: CoreRun = new CoreRun({
      dataDir,
      startedAt,
      kind: opts.kind ?? 'serve',
      offline,
      live,
      logger,
      lock,
      store,
      catalog,
      manager,
      oauth,
      requests: requestsSetup,
      listChanged,
      learned,
      activity,
      detachSecrets,
      detachOAuth,
      forgetRemovedAgents,
      listen: opts.serveHttp
        ? () =>
            listenHttp({
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
        : null,
    })

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
      stop: () => run.stop(),
      start: async () => {
        if (starting) throw new Error('this core was started already; build another to start again')
        starting = true
        await run.start()
        return startedCore(built, run.url)
      },
    }
    let starting = false
    return built
  } catch (e) {
    lock.release()
    throw e
  }
}
