// Inspect (docs/isolation.md): a quarantined server is started once, sandboxed, to list its tools
// (and its prompts and resource templates) for review; an approved one lists its tools as it runs now. A failure for want of network is
// kept per server and shown with it, with the offer to Inspect with network.
import path from 'node:path'
import { ApiError, type ApiEvent, type ServerInfo } from '../../../shared/api'
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'
import { idleStopSeconds, lifecycleOf } from '../../../shared/lifecycle'
import { organisationRefusal } from '../catalog/decisions'
import { needsSignIn } from '../oauth/errors'
import { inspectTimeoutMs, inspectUpstream } from '../upstream/inspect'
import { ON_DEMAND_WAIT_MS } from '../upstream/manager'
import { launcherOf, looksLikeNetworkFailure, registryAccess, sandboxSupport } from '../upstream/sandbox'
import { serverInfo } from '../views/server-view'
import type { ServiceDeps } from './deps'
import type { TemplateDefinition } from '../../../shared/resources'
import type { PromptDefinition } from '../../../shared/prompts'
import type { UpstreamConnection } from '../upstream/connection'
import { serverTemplates, type ResourceLister } from '../agent-server/resources'
import { templateDefinitions } from '../agent-server/template-review'

/** "2 prompts", "1 prompt", or nothing for none. */
function counted(n: number, what: string): string {
  return n === 0 ? '' : n === 1 ? `1 ${what}` : `${n} ${what}s`
}

/** What an Inspect waits for, in words, for the window while it runs. */
function inspectWaitsFor(s: ServerConfig): string {
  if (!usesStdio(s)) return `connecting to ${s.url ?? 'the server'} and waiting for its list of tools`
  const launcher = launcherOf(s)
  const download = launcher ? `${launcher === 'npm' ? 'npm' : 'PyPI'} to download the package, then ` : ''
  return `starting ${path.basename(s.command ?? 'the program')} in the sandbox and waiting for ${download}its list of tools`
}

/** Inspect for one core: shared by every origin's view of its control service. */
export class ServerInspect {
  /** Inspect failures for want of network, per server, with the launch they were about. */
  private readonly offline = new Map<string, { message: string; launchHash: string }>()

  constructor(private readonly d: ServiceDeps) {}

  /** A quarantined server's view gains what its Inspect waits for, and a failure for want of network of this very launch. */
  describe(info: ServerInfo, s: ServerConfig): ServerInfo {
    if (!info.quarantined) return info
    const offline = this.offline.get(s.name)
    // a failure for want of network is about this launch: an edited entry starts over
    const failure = offline && offline.launchHash === info.launch_hash ? { offline_failure: offline.message } : {}
    return { ...info, inspect: { waits_for: inspectWaitsFor(s), timeout_s: Math.round(inspectTimeoutMs(s) / 1000), ...failure } }
  }

  /** The server action `inspect`: never a program the organisation's policy blocks. */
  async run(s: ServerConfig, network: boolean): Promise<string> {
    if (s.organisation?.blocked) throw organisationRefusal(`"${s.name}" may not run (${s.organisation.blocked})`)
    if (this.d.catalog.quarantineOf(s) === null && s.enabled) return this.listApproved(s.name)
    return this.inspect(s, network)
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
    const listed: { templates: TemplateDefinition[] | null; prompts: PromptDefinition[] | null } = { templates: null, prompts: null }
    try {
      const tools = await inspectUpstream(s, {
        logger: this.d.logger.child({ server: name, inspect: true }),
        limits: this.d.manager.limits(),
        network,
        ...(this.d.oauth ? { oauth: this.d.oauth } : {}),
        sandbox: { ctx: { dataDir: this.d.dataDir, configPath: this.d.configPath }, mode: 'inspect' },
        launchCheck: (resolved) => this.d.manager.launchCheck(resolved),
        references: { secret: (n) => this.d.secrets.get(n), env: process.env },
        // its prompts and resource templates too: approving the server approves exactly the ones shown (inspected-lists.ts)
        alsoList: async (conn, timeoutMs) => {
          listed.prompts = await this.inspectPrompts(name, conn, timeoutMs)
          listed.templates = await this.inspectTemplates(name, conn, timeoutMs)
        },
      })
      catalog.setLiveTools(name, tools, 'inspect')
      if (listed.prompts) await catalog.setLivePrompts(name, listed.prompts, undefined, { source: 'inspect' })
      if (listed.templates) await catalog.setLiveTemplates(name, listed.templates, undefined, 'inspect')
      this.offline.delete(name)
      const also = [counted(listed.prompts?.length ?? 0, 'prompt'), counted(listed.templates?.length ?? 0, 'resource template')]
        .filter((x) => x !== '')
        .map((x) => ` and ${x}`)
        .join('')
      return `Inspected ${name}: it offers ${tools.length === 1 ? '1 tool' : `${tools.length} tools`}${also}; the process was stopped again.${how} Review them, then approve the server.`
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
        this.offline.set(name, { message, launchHash: serverInfo(catalog, this.d.manager.connections, s).launch_hash })
        this.d.events.emit('event', { type: 'servers.changed', data: { servers: [name] } } satisfies ApiEvent)
        throw new ApiError('inspect_failed_offline', message, 502)
      }
      if (!network) this.offline.delete(name)
      throw new ApiError('inspect_failed', why, 502)
    }
  }

  /** The prompts an Inspect lists, as the catalog reads them; null when the server could not list them (then none is approved with the server). */
  private async inspectPrompts(name: string, conn: Pick<UpstreamConnection, 'listPrompts'>, timeoutMs: number): Promise<PromptDefinition[] | null> {
    try {
      return (await conn.listPrompts(timeoutMs)).prompts
    } catch (e) {
      this.d.logger.warn({ server: name, err: (e as Error).message }, 'Inspect could not list the prompts of a server')
      return null
    }
  }

  /** The resource templates an Inspect lists, as agents would read them; null when the server could not list them (then none is approved with the server). */
  private async inspectTemplates(
    name: string,
    conn: { relay: ResourceLister['relay']; capabilities: { resources?: unknown } | undefined },
    timeoutMs: number,
  ): Promise<TemplateDefinition[] | null> {
    if (!conn.capabilities?.resources) return []
    try {
      const listed = await serverTemplates({ name, relay: (m, p, o) => conn.relay(m, p, o) }, timeoutMs)
      return templateDefinitions(listed).map((d) => d.def)
    } catch (e) {
      this.d.logger.warn({ server: name, err: (e as Error).message }, 'Inspect could not list the resource templates of a server')
      return null
    }
  }
}
