// The egress allowlist of a sandboxed server (`sandbox.network: ["api.github.com", "host:port"]`,
// docs/contract.md §8): how an entry is written, and whether a destination matches. Pure: the config
// schema checks entries with it, Toolgate's egress proxy matches with it.

/** One entry: a host (or `*.` and a domain: its subdomains) and the ports it may be reached on. */
export interface EgressRule {
  /** lower case, no trailing dot; an IPv6 address without brackets */
  host: string
  /** `*.example.com`: any name below example.com (not example.com itself) */
  wildcard: boolean
  /** the ports; without one in the entry, 443 and 80 */
  ports: number[]
  /** as written */
  text: string
}

/** Ports of an entry written without one: HTTPS and HTTP. */
export const DEFAULT_EGRESS_PORTS = [443, 80]

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/

/** A host name or address as a destination: lower case, no trailing dot, IPv6 without brackets; null if it is not one. */
export function normalizeHost(raw: string): string | null {
  let h = raw.trim().toLowerCase()
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1)
  if (h.includes(':')) return isIpv6(h) ? h : null
  if (h.endsWith('.')) h = h.slice(0, -1)
  if (IPV4.test(h)) return h
  if (h.length === 0 || h.length > 253) return null
  return h.split('.').every((l) => LABEL.test(l)) && !/^\d+$/.test(h.split('.').slice(-1)[0] ?? '') ? h : null
}

function isIpv6(h: string): boolean {
  if (!/^[0-9a-f:.]+$/.test(h) || !h.includes(':')) return false
  const parts = h.split('::')
  if (parts.length > 2) return false
  const groups = h.split(':').filter(Boolean)
  const last = groups[groups.length - 1] ?? ''
  const v4 = IPV4.test(last)
  if (!groups.every((g, i) => (i === groups.length - 1 && v4) || /^[0-9a-f]{1,4}$/.test(g))) return false
  const count = groups.length + (v4 ? 1 : 0)
  return parts.length === 2 ? count <= 7 : count === 8
}

/** Parses one allowlist entry; a string is the problem, said for the operator. */
export function parseEgressRule(text: string): EgressRule | string {
  const t = text.trim()
  if (t === '') return 'a host must not be empty'
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) {
    const bare = t.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0]
    return `write a host (and port), not a URL: "${bare}" instead of "${t}"`
  }
  if (/[/?#@\s]/.test(t)) return `"${t}" is not a host: write "api.example.com" or "api.example.com:8443"`
  if (t === '*' || t === '*:*') return 'a "*" entry would allow everything: write network: true for an open network'
  let hostPart = t
  let portPart: string | null = null
  if (t.startsWith('[')) {
    const end = t.indexOf(']')
    if (end < 0) return `"${t}": an IPv6 address with a port is written [address]:port`
    hostPart = t.slice(0, end + 1)
    const rest = t.slice(end + 1)
    if (rest !== '') {
      if (!rest.startsWith(':')) return `"${t}": an IPv6 address with a port is written [address]:port`
      portPart = rest.slice(1)
    }
  } else if ((t.match(/:/g) ?? []).length === 1) {
    ;[hostPart, portPart] = t.split(':')
  }
  let ports = DEFAULT_EGRESS_PORTS
  if (portPart !== null) {
    if (!/^\d{1,5}$/.test(portPart) || Number(portPart) < 1 || Number(portPart) > 65535) return `"${t}": the port must be a number from 1 to 65535`
    ports = [Number(portPart)]
  }
  const wildcard = hostPart.startsWith('*.')
  const host = normalizeHost(wildcard ? hostPart.slice(2) : hostPart)
  if (host === null || hostPart.slice(wildcard ? 2 : 0).includes('*')) {
    return `"${t}" is not a host name or address (a wildcard is only "*." before a domain, like "*.githubusercontent.com")`
  }
  if (wildcard && (IPV4.test(host) || host.includes(':') || !host.includes('.'))) return `"${t}": "*." goes before a domain with a dot, like "*.example.com"`
  return { host, wildcard, ports, text: t }
}

/** The rules of an allowlist whose every entry parses (the schema refused the others). */
export function parseEgressRules(entries: readonly string[]): EgressRule[] {
  return entries.map(parseEgressRule).filter((r): r is EgressRule => typeof r !== 'string')
}

/** The rule that lets a connection to `host`:`port` through, if any. */
export function egressRuleFor(rules: readonly EgressRule[], rawHost: string, port: number): EgressRule | null {
  const host = normalizeHost(rawHost)
  if (host === null) return null
  for (const r of rules) {
    if (!r.ports.includes(port)) continue
    if (r.wildcard ? host.endsWith(`.${r.host}`) : host === r.host) return r
  }
  return null
}
