// Where the events of one server's Upstream go: its tool and prompt lists into the catalog (their
// approvals recorded), its connection state into ConnectionStates, resource updates to the agents
// subscribed, its log messages to ServerLogs; its state, its tools and the end of each use move
// its idle clock. The UpstreamManager makes one ServerSlot per server that may run.
import type { ServerConfig } from '../../../shared/config-schema'
import type { PromptDefinition } from '../../../shared/prompts'
import type { ToolDefinition } from '../../../shared/tool-definition'
import type { Catalog } from '../catalog/catalog'
import { ingestTools } from '../catalog/decisions'
import { ingestPrompts } from '../catalog/prompt-decisions'
import type { Logger } from '../log'
import { canonicalJson } from '../state/hash'
import { launchKeyOf, ServerSlot } from './lifecycle'
import type { ResourceSubscriptions } from './resource-subscriptions'
import type { ServerLogs } from './server-logs'
import type { ConnectionStates } from './states'
import type { Upstream } from './upstream'

/** What a slot's events reach. */
export interface SlotSinks {
  catalog: Catalog
  logger: Logger
  connections: ConnectionStates
  subscriptions: ResourceSubscriptions
  logs: ServerLogs
  /** the slot is still its server's (a changed launch or a removal replaces it) */
  current(slot: ServerSlot): boolean
  /** the server's start is queued (it shows as connecting until it starts) */
  queued(name: string): boolean
  /** the slot's use or state changed: its idle clock moves */
  armIdle(slot: ServerSlot): void
  /** other servers are still starting: the state write of an ingest may wait to take their baselines along */
  batching(): boolean
  /** an ingest of a list into the catalog runs (settled() waits for the state file write) */
  ingest(work: () => Promise<void>): void
  /** the server said its resource list changed */
  resourcesListChanged(server: string): void
}

/** The slot of `cfg`, its Upstream `up` wired to `sinks`. */
export function wireSlot(cfg: ServerConfig, up: Upstream, sinks: SlotSinks): ServerSlot {
  const slot = new ServerSlot(cfg, launchKeyOf(cfg, canonicalJson), up)
  const current = (): boolean => sinks.current(slot)
  const announce = (): void => {
    if (!current() || sinks.queued(cfg.name)) return
    sinks.connections.set(cfg.name, {
      state: up.state,
      lastError: up.lastError,
      attempt: up.attempt,
      protocolVersion: up.protocolVersion,
      idleStopAt: slot.idleStopAt,
    })
  }
  up.on('state', () => {
    if (!current()) return
    if (up.state !== 'connected') slot.ready = up.state === 'connecting' ? slot.ready : false
    announce()
    sinks.armIdle(slot)
  })
  up.on('tools', (tools: ToolDefinition[]) => {
    if (!current()) return
    // while other servers are still starting, the state write may wait to take their baselines along
    sinks.ingest(() =>
      ingestTools(sinks.catalog, cfg.name, tools, { batch: sinks.batching() }).catch((e: unknown) =>
        sinks.logger.error({ server: cfg.name, err: String(e) }, 'could not record tool approvals'),
      ),
    )
    // ingestTools puts the tools (and their baseline approval) into the catalog before its first
    // await; only the state file write is still running: callers need not wait for the disk.
    // the idle clock runs from when it is ready (its prompts and resources are being listed now), not from its spawn
    if (!slot.ready) up.touch()
    slot.ready = true
    slot.onDemandStart = false
    sinks.armIdle(slot)
  })
  up.on('prompts', (prompts: PromptDefinition[]) => {
    if (!current()) return
    sinks.ingest(() =>
      ingestPrompts(sinks.catalog, cfg.name, prompts, { batch: sinks.batching() }).catch((e: unknown) =>
        sinks.logger.error({ server: cfg.name, err: String(e) }, 'could not record prompt approvals'),
      ),
    )
  })
  up.on('resourceUpdated', (uri: string) => {
    if (current()) sinks.subscriptions.deliver(cfg.name, uri)
  })
  up.on('resourcesListChanged', () => {
    if (current()) sinks.resourcesListChanged(cfg.name)
  })
  up.on('log', (params, request) => {
    if (current()) sinks.logs.deliver(cfg.name, params, request)
  })
  up.on('used', () => {
    if (current()) sinks.armIdle(slot)
  })
  slot.announce = announce
  announce()
  return slot
}
