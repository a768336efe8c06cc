// The Api behind the renderer's and the Electron glue's tests: the control service of the core
// built over buildWorld() (or any fixture) by production's buildCore, with the core's own event
// stream. The wrapper (one method per operation of the table) only records the calls the UI
// makes and can make the next call fail like a broken transport.
import fs from 'node:fs'
import { ApiError, type Api, type ApiEvent, type SearchArgs } from '../../src/shared/api'
import { callOperation, proxyOperations, type ApiOps, type OpName } from '../../src/shared/operations'
import type { ControlService } from '../../src/main/core/control/service'
import type { AgentTokens } from '../../src/main/core/agent-server/tokens'
import type { ControlEvents } from '../../src/main/core/control/events'
import type { UpstreamManager } from '../../src/main/core/upstream/manager'
import type { DiscoveryStats } from '../../src/main/core/discovery/stats'
import { buildWorld, makeFixture, type Fixture } from './catalog-fixture'
import type { RequestsSetup } from '../../src/main/core/requests'
import type { ActivityRecorder } from '../../src/main/core/activity/recorder'

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
  /** the discovery counters behind stats(): the world's agent sessions count as agents' searches */
  readonly discovery: DiscoveryStats
  /** the core's recorder on the fixture's data dir: agents' records go through it (see agentSession) */
  readonly activityLog: ActivityRecorder
  /** the core's upstream manager (its connection states are what the UI shows as a server's state) */
  readonly manager: UpstreamManager
  private failures = new Map<Op, ApiError>()
  private listeners = 0

  constructor(readonly world: Fixture) {
    const core = world.core
    this.service = core.api
    this.events = core.events
    this.tokens = core.tokens
    this.grants = core.requests
    this.discovery = core.stats
    this.activityLog = core.activity
    this.manager = core.manager
    Object.assign(
      this,
      proxyOperations((op, args) => this.run(op, args)),
    )
  }

  /**
   * Writes `text` into the world's config file and lets the core read it as the file watcher
   * does: a config that does not load is the config error the core reports (the last good config stays).
   */
  editConfigFile(text: string): void {
    fs.writeFileSync(this.world.configPath, text)
    this.world.core.configFileChanged()
  }

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
