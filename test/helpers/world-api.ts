// The Api behind the renderer's and the Electron glue's tests: the real ControlService over the
// real catalog of buildWorld() (or any fixture), with the core's own event stream. The wrapper
// (one method per operation of the table) only records the calls the UI makes and can make the
// next call fail like a broken transport.
import { AskInClientSwitch } from '../../src/main/core/agents-view/ask-in-client'
import { ApiError, type Api, type ApiEvent, type SearchArgs } from '../../src/shared/api'
import { callOperation, proxyOperations, type ApiOps, type OpName } from '../../src/shared/operations'
import { ControlService } from '../../src/main/core/control/service'
import { AgentTokens } from '../../src/main/core/agent-server/tokens'
import { ControlEvents } from '../../src/main/core/control/events'
import { UpstreamManager } from '../../src/main/core/upstream/manager'
import { DiscoveryStats } from '../../src/main/core/discovery/stats'
import { silentLogger } from '../../src/main/core/log'
import { SecretStore } from '../../src/main/core/secrets/store'
import { activityRecorder, buildWorld, fixtureRequests, makeFixture, type Fixture } from './catalog-fixture'
import type { RequestsSetup } from '../../src/main/core/requests'
import type { ActivityRecorder } from '../../src/main/core/activity/recorder'
import { afterEach } from 'vitest'

const managers: UpstreamManager[] = []
afterEach(async () => {
  while (managers.length) await managers.pop()!.stopAll()
})

type Op = OpName

// the operations are assigned in the constructor, one per entry of the table (shared/operations.ts)
export interface WorldApi extends ApiOps {}

export class WorldApi implements Api {
  /** every call, as "method arg1 arg2" */
  readonly calls: string[] = []
  readonly searches: SearchArgs[] = []
  readonly events: ControlEvents
  readonly service: ControlService
  /** the agent tokens of the world's state (create them with `tokens.create(agent)`) */
  readonly tokens: AgentTokens
  /** the access requests and grant keeper behind the service (agents ask through `requests.ask`) */
  readonly grants: RequestsSetup
  /** the discovery counters behind stats(): agent sessions given these count as agents' searches */
  readonly discovery = new DiscoveryStats()
  /** the real recorder on the fixture's data dir: agents' records go through it (see agentSession) */
  readonly activityLog: ActivityRecorder
  /** the real upstream manager (its connection states are what the UI shows as a server's state) */
  readonly manager: UpstreamManager
  private failures = new Map<Op, ApiError>()
  private listeners = 0

  /** `temporaryDataDir`: as `toolgate demo` runs it (the data dir goes when it exits) */
  constructor(
    readonly world: Fixture,
    opts: { temporaryDataDir?: boolean } = {},
  ) {
    const logger = silentLogger()
    this.tokens = new AgentTokens(world.store, () => world.catalog.currentConfig.agents, world.configPath)
    const manager = new UpstreamManager(world.catalog, logger)
    this.manager = manager
    managers.push(manager)
    this.events = new ControlEvents(world.catalog, manager.connections)
    this.grants = fixtureRequests(world, manager, (ev) => this.events.emitEvent(ev))
    const events = this.events
    // kept open for the whole file: a world built in beforeAll serves many tests
    this.activityLog = activityRecorder(world, (e) => events.emitEvent({ type: 'activity', data: e }), false)
    this.service = new ControlService({
      requests: this.grants.requests,
      confirmations: this.grants.confirmations,
      catalog: world.catalog,
      manager,
      stats: this.discovery,
      logger,
      events: this.events,
      configPath: world.configPath,
      dataDir: world.dir,
      // the real store on the fixture's data dir; no OS keychain in tests (the key file)
      secrets: new SecretStore({ dataDir: world.dir, keychain: null }),
      startedAt: Date.now(),
      reloadConfig: () => world.reloadConfig(),
      mcpUrl: () => 'http://127.0.0.1:8719/mcp',
      configError: () => this.configError,
      tokens: this.tokens,
      activity: this.activityLog,
      running: true,
      askInClient: new AskInClientSwitch(world.catalog),
      temporaryDataDir: opts.temporaryDataDir === true,
    })
    Object.assign(
      this,
      proxyOperations((op, args) => this.run(op, args)),
    )
  }

  /** what the core reports as the config error (the watcher sets it in the real core) */
  configError: string | null = null

  /** the next call of `op` rejects with `err` (a transport failure; the core never saw the call) */
  failNext(op: Op, err: ApiError): void {
    this.failures.set(op, err)
  }

  /** an event as the core emits it (config events come from the config watcher) */
  emit(ev: ApiEvent): void {
    this.events.emitEvent(ev)
  }

  get listenerCount(): number {
    return this.listeners
  }

  private record(op: Op, args: unknown[]): void {
    this.calls.push([op, ...args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))].join(' '))
    const err = this.failures.get(op)
    if (err) {
      this.failures.delete(op)
      throw err
    }
  }

  /** One operation: recorded (a secret's value never), then the real service's. */
  private async run(op: OpName, args: unknown[]): Promise<unknown> {
    const shown = [...args]
    while (shown.length && shown[shown.length - 1] === undefined) shown.pop()
    this.record(op, op === 'setSecret' ? shown.slice(0, 1) : shown)
    if (op === 'search') this.searches.push(args[0] as SearchArgs)
    return callOperation(this.service, op, args)
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    this.listeners++
    const off = this.service.subscribe(listener)
    return () => {
      this.listeners--
      off()
    }
  }
}

/** The world of every status (see buildWorld in catalog-fixture.ts) behind the real control service. */
export async function worldApi(): Promise<WorldApi> {
  return new WorldApi(await buildWorld())
}

/** A fresh install: a config without servers. */
export function emptyApi(): WorldApi {
  return new WorldApi(makeFixture({ mcpServers: {} }))
}
