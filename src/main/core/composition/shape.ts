// What a core is to those who run it (the tray app, `serve`, an embedded `stdio`, the in-process
// tests): its options, the started Core, the BuiltCore not started yet, and the error of a data
// dir another Toolgate owns. core.ts builds and starts it; startedCore is the face start() returns.
import type { AppInfo } from '../../../shared/api'
import type { DecisionOrigin } from '../../../shared/activity'
import type { Catalog } from '../catalog/catalog'
import type { ControlService } from '../control/service'
import type { ControlEvents } from '../control/events'
import type { ActivityRecorder } from '../activity/recorder'
import type { AgentDeps } from '../agent-server/mcp-server'
import type { Scope } from '../access/scope'
import type { AgentTokens } from '../agent-server/tokens'
import type { DiscoveryStats } from '../discovery/stats'
import type { Logger } from '../log'
import type { RequestsSetup } from '../requests'
import type { SecretStore, SecretSealer } from '../secrets/store'
import type { Keychain } from '../secrets/keychain'
import type { StateStore } from '../state/store'
import type { Instance } from '../state/lock'
import type { UpstreamManager } from '../upstream/manager'

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

/** The started core that BuiltCore.start() answers: the built core's parts its runners use, and the listener's address. */
export function startedCore(built: BuiltCore, url: string | null): Core {
  return {
    api: built.api,
    apiFor: built.apiFor,
    activity: built.activity,
    instanceKey: built.instanceKey,
    url,
    dataDir: built.dataDir,
    configPath: built.configPath,
    catalog: built.catalog,
    logger: built.logger,
    agentDeps: built.agentDeps,
    secrets: built.secrets,
    scopeForAgent: built.scopeForAgent,
    settled: built.settled,
    createAgentToken: built.createAgentToken,
    forgetLearned: built.forgetLearned,
    stop: built.stop,
    get info() {
      return built.info
    },
    get adminKey() {
      return built.adminKey
    },
  }
}
