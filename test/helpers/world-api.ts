// The Api behind the renderer's and the Electron glue's tests: the real ControlService over the
// real catalog of buildWorld() (or any fixture), with the core's own event stream. The wrapper
// only records the calls the UI makes and can make the next call fail like a broken transport.
import { ApiError, type Api, type ApiEvent, type SearchArgs } from '../../src/shared/api'
import { ControlService } from '../../src/main/core/control/service'
import { AgentTokens } from '../../src/main/core/agent/tokens'
import { ControlEvents } from '../../src/main/core/control/events'
import { UpstreamManager } from '../../src/main/core/upstream-manager'
import { DiscoveryStats } from '../../src/main/core/discovery/stats'
import { silentLogger } from '../../src/main/core/log'
import { SecretStore } from '../../src/main/core/secrets/store'
import { activityRecorder, buildWorld, fixtureRequests, makeFixture, type Fixture } from './catalog-fixture'
import type { RequestsSetup } from '../../src/main/core/requests'
import type { ActivityQuery } from '../../src/shared/activity'
import type { ActivityRecorder } from '../../src/main/core/activity/recorder'
import { afterEach } from 'vitest'

const managers: UpstreamManager[] = []
afterEach(async () => {
  while (managers.length) await managers.pop()!.stopAll()
})

type Op = Exclude<keyof Api, 'subscribe'>

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

  constructor(readonly world: Fixture) {
    const logger = silentLogger()
    this.tokens = new AgentTokens(world.store, () => world.catalog.currentConfig.agents, world.configPath)
    const manager = new UpstreamManager(world.catalog, logger)
    this.manager = manager
    managers.push(manager)
    this.events = new ControlEvents(world.catalog, manager.connections)
    this.grants = fixtureRequests(world, manager, (ev) => this.events.emitEvent(ev))
    const events = this.events
    // kept open for the whole file: a world built in beforeAll serves many tests
    this.activityLog = activityRecorder(world, (e) => events.emitEvent({ type: 'activity', data: e as unknown as Record<string, unknown> }), false)
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
    })
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

  private async run<T>(op: Op, args: unknown[], fn: () => Promise<T>): Promise<T> {
    this.record(op, args)
    return fn()
  }

  info = () => this.run('info', [], () => this.service.info())
  status = () => this.run('status', [], () => this.service.status())
  servers = () => this.run('servers', [], () => this.service.servers())
  server = (name: string) => this.run('server', [name], () => this.service.server(name))
  tools = (server: string) => this.run('tools', [server], () => this.service.tools(server))
  serverAction: Api['serverAction'] = (server, action, options) =>
    this.run('serverAction', options ? [server, action, options] : [server, action], () => this.service.serverAction(server, action, options))
  toolAction: Api['toolAction'] = (server, tool, action, options) =>
    this.run('toolAction', options ? [server, tool, action, options] : [server, tool, action], () => this.service.toolAction(server, tool, action, options))
  requests: Api['requests'] = (filter) => this.run('requests', filter ? [filter] : [], () => this.service.requests(filter))
  grantRequest: Api['grantRequest'] = (id, grantFor, options) =>
    this.run('grantRequest', options ? [id, grantFor, options] : [id, grantFor], () => this.service.grantRequest(id, grantFor, options))
  denyRequest: Api['denyRequest'] = (id) => this.run('denyRequest', [id], () => this.service.denyRequest(id))
  confirmations: Api['confirmations'] = (filter) => this.run('confirmations', filter ? [filter] : [], () => this.service.confirmations(filter))
  allowConfirmation: Api['allowConfirmation'] = (id) => this.run('allowConfirmation', [id], () => this.service.allowConfirmation(id))
  denyConfirmation: Api['denyConfirmation'] = (id) => this.run('denyConfirmation', [id], () => this.service.denyConfirmation(id))
  setAskBeforeCall: Api['setAskBeforeCall'] = (server, tool, ask) =>
    this.run('setAskBeforeCall', [server, tool ?? '', String(ask)], () => this.service.setAskBeforeCall(server, tool, ask))
  approveAll = (server: string) => this.run('approveAll', [server], () => this.service.approveAll(server))
  classifyTool: Api['classifyTool'] = (server, tool, cls, hash) =>
    this.run('classifyTool', [server, tool, cls, hash], () => this.service.classifyTool(server, tool, cls, hash))
  search = (args: SearchArgs) => {
    this.searches.push(args)
    return this.run('search', [args], () => this.service.search(args))
  }
  stats = () => this.run('stats', [], () => this.service.stats())
  agentTokens = (agent: string) => this.run('agentTokens', [agent], () => this.service.agentTokens(agent))
  revokeAgentTokens = (agent: string, id?: string) =>
    this.run('revokeAgentTokens', id === undefined ? [agent] : [agent, id], () => this.service.revokeAgentTokens(agent, id))

  activity = (q: ActivityQuery) => this.run('activity', [q], () => this.service.activity(q))
  agents = () => this.run('agents', [], () => this.service.agents())
  serverEntry = (server: string) => this.run('serverEntry', [server], () => this.service.serverEntry(server))
  addServer: Api['addServer'] = (input) => this.run('addServer', [input], () => this.service.addServer(input))
  editServer: Api['editServer'] = (server, input) => this.run('editServer', [server, input], () => this.service.editServer(server, input))
  removeServer = (server: string) => this.run('removeServer', [server], () => this.service.removeServer(server))
  restoreServer = (server: string) => this.run('restoreServer', [server], () => this.service.restoreServer(server))
  secrets = () => this.run('secrets', [], () => this.service.secrets())
  // the value is never recorded: calls show only the name
  setSecret = (name: string, value: string) => this.run('setSecret', [name], () => this.service.setSecret(name, value))
  deleteSecret = (name: string) => this.run('deleteSecret', [name], () => this.service.deleteSecret(name))
  signIn = (server: string) => this.run('signIn', [server], () => this.service.signIn(server))
  authStatus = (server: string) => this.run('authStatus', [server], () => this.service.authStatus(server))
  signOut = (server: string) => this.run('signOut', [server], () => this.service.signOut(server))
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
