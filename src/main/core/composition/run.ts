// A built core's start and stop, in their order: start() upgrades the state, watches the files,
// ends the grants that ended, checks the sandbox, listens and starts the upstreams; stop() ends it
// all again (the upstreams before the listener) and writes what waits. core.ts wires the parts.
import type { Catalog } from '../catalog/catalog'
import { finishStateUpgrade, pinFailClosedServers } from '../catalog/server-decisions'
import type { StateStore } from '../state/store'
import { LastCatalogWriter, loadLastCatalog, readLastCatalog } from '../state/last-catalog'
import { instanceKeyPath, type DataDirLock, type Instance } from '../state/lock'
import type { UpstreamManager } from '../upstream/manager'
import { startEgressProxy } from '../upstream/sandbox'
import { probeSandbox } from '../upstream/sandbox/self-test'
import { sweepOrphanedPasta } from '../upstream/sandbox/orphans'
import { selfTestInner } from '../upstream/sandbox/network'
import type { OAuthService } from '../oauth/service'
import type { ActivityRecorder } from '../activity/recorder'
import type { ListChangedHub } from '../agent-server/list-changed'
import type { LearnedStore } from '../search/learned-store'
import type { RequestsSetup } from '../requests'
import type { RunningHttp } from '../http/server'
import type { Logger } from '../log'
import { VERSION } from '../version'
import type { LiveConfig } from './live-config'

/** The parts of a built core that its start and stop touch. */
export interface RunParts {
  dataDir: string
  startedAt: number
  kind: Instance['kind']
  /** an operator command's core: no upstream starts, the last known catalog is shown whole */
  offline: boolean
  live: LiveConfig
  logger: Logger
  lock: DataDirLock
  store: StateStore
  catalog: Catalog
  manager: UpstreamManager
  oauth: OAuthService
  requests: RequestsSetup
  listChanged: ListChangedHub
  learned: LearnedStore
  activity: ActivityRecorder
  /** the secret store's and the sign-ins' hooks into the upstreams (undone at stop) */
  detachSecrets: () => void
  detachOAuth: () => void
  forgetRemovedAgents: () => void
  /** starts the loopback listener (CoreOptions.serveHttp); null: the core serves none */
  listen: (() => Promise<RunningHttp>) | null
}

export class CoreRun {
  private http: RunningHttp | null = null
  private stopWatchingState = async (): Promise<void> => undefined
  private lastCatalog: LastCatalogWriter | null = null
  private selfTestRun: Promise<unknown> | null = null
  private stopping: Promise<void> | null = null

  constructor(private readonly p: RunParts) {}

  /** The listener's address once it listens, else null. */
  get url(): string | null {
    return this.http?.url ?? null
  }

  async start(): Promise<void> {
    const { p } = this
    const { logger, catalog, dataDir, offline } = p
    // bubblewrap's and pasta's self-tests, once per process (startCore began them while it built
    // the core): they run while the state, catalog and watchers are set up, and end before the listener
    const selfTest = probeSandbox()
    this.selfTestRun = selfTest
    this.stopWatchingState = p.store.watchForLoss((file, how) =>
      logger.warn(
        how === 'deleted'
          ? `${file} disappeared while Toolgate ran; it was written again from memory`
          : `${file} was changed behind Toolgate's back while it ran; it was written again from memory (the decisions Toolgate holds are kept)`,
      ),
    )
    await finishStateUpgrade(catalog)
    await pinFailClosedServers(catalog)
    p.forgetRemovedAgents()
    // the last known tool lists: offline commands show them; an owner answers search and listings
    // from them while on-demand servers are stopped (nothing has to start to be found)
    const last = readLastCatalog(dataDir)
    if (last) loadLastCatalog(catalog, last, offline ? 'all' : 'listed-by-server')
    this.lastCatalog = offline ? null : new LastCatalogWriter(dataDir, catalog, logger)
    // a server removed while Toolgate was not running: its sign-in ends now (docs/remote-servers.md)
    // an entry left out for a mistake in it is not removed: its sign-in stays
    const orphans = p.oauth.endSignInsNotIn([...p.live.current.servers, ...p.live.current.skipped].map((s) => s.name))
    if (orphans.length) logger.info({ servers: orphans }, 'ended the sign-ins of servers no longer in the config')
    // the file's edits and the organisation's policy changes apply (live-config.ts)
    p.live.watch()
    // grants that ended while Toolgate was stopped end now, before any agent or upstream is served
    await p.requests.keeper.start()

    const { sandbox, net } = await selfTest
    if (sandbox.available) logger.info({ sandbox: sandbox.mechanism, binary: sandbox.binary }, 'stdio upstreams run isolated')
    else logger.warn(`stdio upstreams are NOT isolated: ${sandbox.reason}`)
    if (net && !net.available) logger.warn(`sandboxed servers with network on share this machine's network: ${net.reason}`)
    if (net?.available) {
      const swept = sweepOrphanedPasta(dataDir, sandbox.binary ? selfTestInner(sandbox.binary) : null)
      if (swept.length) logger.warn({ pids: swept }, `killed ${swept.length} pasta helper(s) an earlier run left behind when it was killed`)
    }
    if (sandbox.available) await startEgressProxy() // the one way out of a server with an allowlist (sandbox.network: [hosts])
    if (p.listen) this.http = await p.listen()
    const url = this.url
    p.lock.writeInstance({
      pid: process.pid,
      url,
      mcp_url: url ? `${url}/mcp` : null,
      started_at: new Date(p.startedAt).toISOString(),
      version: VERSION,
      kind: p.kind,
      api_key_file: instanceKeyPath(dataDir),
    })

    p.manager.start()
  }

  /** Ends what start() started (also after a start that failed half-way); once. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll()
    return this.stopping
  }

  private async stopAll(): Promise<void> {
    const { p } = this
    const { keeper, requests, confirmations, questions } = p.requests
    keeper.stop()
    requests.close()
    confirmations.close()
    questions.close()
    p.listChanged.close()
    await p.live.close()
    await this.stopWatchingState()
    p.detachSecrets()
    await p.oauth.settle()
    p.detachOAuth()
    // Upstreams first: calls in flight are answered with a clear error before the listener closes.
    await p.manager.stopAll()
    await this.lastCatalog?.close()
    await this.http?.close()
    await p.store.settle()
    await p.learned.flush()
    p.activity.close()
    // a start that failed while pasta's self-test ran: pasta stopped during its setup would leave its namespace child behind
    await this.selfTestRun
    p.lock.release()
    p.logger.flush?.()
  }
}
