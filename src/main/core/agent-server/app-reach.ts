// What an MCP App may reach (docs/passthrough.md): a `ui://` resource names in `_meta.ui.csp` the
// origins the agent's host lets its view connect to and load from (none when it names none;
// OpenAI's hosts read `_meta["openai/widgetCSP"]` the same way). A stdio server sandboxed without
// network, or with an allowlist, cannot reach other hosts itself; through its App it could: the
// view the host runs holds what the server put in it (anything the server may read) and sends it
// to any origin the server names. So for such a server the CSP keeps only the origins its sandbox
// allows (none without network), and every other key of it is dropped (a directive the host may
// know and Toolgate not). A server with network (HTTP upstreams, `sandbox: false`, `network: true`)
// keeps its CSP as it is.
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'
import { egressRuleFor, parseEgressRules, type EgressRule } from '../../../shared/egress'
import { sandboxGrants } from '../upstream/sandbox/plan'

/** The CSP lists of MCP Apps (`_meta.ui.csp`) and of OpenAI's Apps SDK (`_meta["openai/widgetCSP"]`). */
const CSP_LISTS: Record<string, readonly string[]> = {
  ui: ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'],
  'openai/widgetCSP': ['connect_domains', 'resource_domains', 'frame_domains', 'redirect_domains'],
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The hosts a server's App may name: any (null), or those of its sandbox's allowlist (none: no network). */
export function appReach(server: ServerConfig): EgressRule[] | null {
  if (!usesStdio(server) || server.sandbox === false) return null
  const network = sandboxGrants(server).network
  if (network === true) return null
  return network === false ? [] : parseEgressRules(network)
}

const DEFAULT_PORTS: Record<string, number> = { 'https:': 443, 'wss:': 443, 'http:': 80, 'ws:': 80 }

/** Whether an origin of a CSP list is one the allowlist lets through (a host without a scheme is taken as https). */
function allowed(rules: readonly EgressRule[], origin: unknown): boolean {
  if (typeof origin !== 'string' || rules.length === 0) return false
  let url: URL
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(origin) ? origin : `https://${origin}`)
  } catch {
    return false
  }
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol]
  return port !== undefined && egressRuleFor(rules, url.hostname, port) !== null
}

/** A resource's (or a content's) `_meta` with its App CSP kept to what `reach` allows; the same object when nothing is to change. */
export function confineAppMeta(meta: unknown, reach: readonly EgressRule[] | null): unknown {
  if (reach === null || !isRecord(meta)) return meta
  let out: Record<string, unknown> | null = null
  for (const [key, lists] of Object.entries(CSP_LISTS)) {
    const holder = key === 'ui' ? meta.ui : meta
    const csp = key === 'ui' ? (isRecord(holder) ? holder.csp : undefined) : meta[key]
    if (csp === undefined) continue
    const kept: Record<string, unknown> = {}
    if (isRecord(csp)) {
      for (const list of lists) {
        const origins = Array.isArray(csp[list]) ? (csp[list] as unknown[]).filter((o) => allowed(reach, o)) : []
        if (origins.length > 0) kept[list] = origins
      }
    }
    out ??= { ...meta }
    if (key === 'ui') out.ui = { ...(holder as Record<string, unknown>), csp: kept }
    else out[key] = kept
  }
  return out ?? meta
}

/** An item (a listed resource or template, a read content) with its `_meta` confined. */
export function confineApp<T>(item: T, reach: readonly EgressRule[] | null): T {
  if (reach === null || !isRecord(item) || item._meta === undefined) return item
  const meta = confineAppMeta(item._meta, reach)
  return meta === item._meta ? item : ({ ...item, _meta: meta } as T)
}
