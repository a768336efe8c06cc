// Toolgate's egress proxy: how a server with an allowlist (`sandbox.network: ["api.github.com"]`)
// reaches exactly those hosts. It is an HTTP proxy on Toolgate's loopback (CONNECT for HTTPS,
// absolute-form requests for HTTP) that the server's namespace can reach and nothing else
// (Linux: the one port pasta forwards, no interface, so no direct connection and no DNS; macOS:
// a rule). Each launch has its own token (the proxy URL's password) naming its allowlist; the
// proxy resolves the name itself and never connects to a loopback, link-local (cloud metadata)
// or multicast address nor to this machine's own addresses, whatever the name resolves to.
import crypto from 'node:crypto'
import dns from 'node:dns'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import type { Duplex } from 'node:stream'
import { egressRuleFor, normalizeHost, type EgressRule } from '../../../../shared/egress'

export interface EgressLog {
  warn(msg: string): void
}

interface Grant {
  server: string
  rules: EgressRule[]
  log: EgressLog | null
  /** its connections, closed when the server stops */
  open: Set<Duplex>
  released: boolean
}

const USER = 'toolgate'
const CONNECT_TIMEOUT_MS = 15_000

/**
 * What the proxy never connects to, by range: Node's BlockList compares addresses as numbers, so
 * every spelling of one (`0:0::1`, `::ffff:7f00:1` for 127.0.0.1, `::0`) matches, and an IPv4
 * rule matches its IPv4-mapped IPv6 form too.
 */
const FORBIDDEN: ReadonlyArray<{ why: string; ranges: ReadonlyArray<[string, number, 'ipv4' | 'ipv6']> }> = [
  {
    why: 'a loopback address (grant a local service with sandbox.loopback instead)',
    ranges: [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  },
  // ::/96 also holds the deprecated IPv4-compatible addresses (::127.0.0.1): never the network
  {
    why: 'an unspecified address',
    ranges: [
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 96, 'ipv6'],
    ],
  },
  {
    why: 'a link-local address (cloud metadata services live there)',
    ranges: [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  },
  {
    why: 'a multicast or reserved address',
    ranges: [
      ['224.0.0.0', 3, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  },
]
const FORBIDDEN_LISTS = FORBIDDEN.map(({ why, ranges }) => {
  const list = new net.BlockList()
  for (const [prefix, bits, family] of ranges) list.addSubnet(prefix, bits, family)
  return { why, list }
})

/** Why a destination address is never connected to (null: it may be). */
export function forbiddenAddress(address: string, own: readonly string[] = ownAddresses()): string | null {
  // a zone (fe80::1%eth0) names the interface, not another address
  const a = address.toLowerCase().replace(/%.*$/, '')
  const family = net.isIPv4(a) ? 'ipv4' : net.isIPv6(a) ? 'ipv6' : null
  if (!family) return 'not an IP address'
  for (const { why, list } of FORBIDDEN_LISTS) if (list.check(a, family)) return why
  const mine = new net.BlockList()
  for (const o of own) {
    const f = net.isIPv4(o) ? 'ipv4' : net.isIPv6(o) ? 'ipv6' : null
    if (f) mine.addAddress(o, f)
  }
  if (mine.check(a, family)) return "this machine's own address (its services are not the network)"
  return null
}

function ownAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((i): i is os.NetworkInterfaceInfo => i !== undefined)
    .map((i) => i.address.toLowerCase().replace(/%.*$/, ''))
}

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The addresses `host` may be connected on (a name resolved here, never by the server). */
async function resolveAllowed(host: string): Promise<string[]> {
  const all: string[] = net.isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((x) => x.address)
  const own = ownAddresses()
  const ok = all.filter((a) => forbiddenAddress(a, own) === null)
  if (ok.length === 0) {
    const why = all.length ? forbiddenAddress(all[0], own) : 'no address'
    throw new Refused(403, `${host} resolves to ${all[0] ?? 'nothing'}: ${why}`)
  }
  return ok
}

function connectTo(addresses: string[], port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const tryAt = (i: number, last?: Error): void => {
      if (i >= addresses.length) return reject(last ?? new Error('no address'))
      const sock = net.connect({ host: addresses[i], port })
      sock.setTimeout(CONNECT_TIMEOUT_MS, () => sock.destroy(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000} s`)))
      sock.once('connect', () => {
        sock.setTimeout(0)
        resolve(sock)
      })
      sock.once('error', (e) => tryAt(i + 1, e))
    }
    tryAt(0)
  })
}

/**
 * One proxy per Toolgate process, started with the core (`startEgressProxy`); launches with an
 * allowlist register with it and get their proxy URL.
 */
export class EgressProxy {
  private readonly grants = new Map<string, Grant>()
  private server: http.Server | null = null
  private port = 0

  get running(): boolean {
    return this.server !== null
  }

  async start(): Promise<void> {
    if (this.server) return
    const server = http.createServer((req, res) => void this.onRequest(req, res))
    server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(req, socket, head))
    server.on('clientError', (_e, socket) => socket.destroy())
    server.headersTimeout = 30_000
    server.requestTimeout = 0 // long downloads and event streams through it
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => resolve())
    })
    server.unref()
    this.port = (server.address() as net.AddressInfo).port
    this.server = server
  }

  async stop(): Promise<void> {
    const server = this.server
    this.server = null
    for (const g of this.grants.values()) for (const s of g.open) s.destroy()
    this.grants.clear()
    if (server) await new Promise<void>((r) => server.close(() => r()))
  }

  /** The proxy's port on the host's loopback (0 until started). */
  get listenPort(): number {
    return this.port
  }

  /** Registers a launch: its proxy URL, and the release that closes its connections. */
  register(server: string, rules: EgressRule[], log: EgressLog | null): { url: string; release: () => void } {
    if (!this.server) throw new Error('the egress proxy is not running (startEgressProxy() when the core starts)')
    const token = crypto.randomBytes(24).toString('base64url')
    const grant: Grant = { server, rules, log, open: new Set(), released: false }
    this.grants.set(token, grant)
    return {
      url: `http://${USER}:${token}@127.0.0.1:${this.port}`,
      release: () => {
        grant.released = true
        this.grants.delete(token)
        for (const s of grant.open) s.destroy()
      },
    }
  }

  private grantOf(req: http.IncomingMessage): Grant | null {
    const auth = req.headers['proxy-authorization']
    const m = typeof auth === 'string' ? /^Basic\s+(\S+)$/i.exec(auth) : null
    if (!m) return null
    const [user, token] = Buffer.from(m[1], 'base64').toString('utf8').split(/:(.*)/s)
    return user === USER && token ? (this.grants.get(token) ?? null) : null
  }

  /** The grant's rule for the destination, or why not. */
  private check(grant: Grant | null, host: string, port: number): Grant {
    if (!grant) throw new Refused(407, 'Toolgate egress proxy: no valid proxy credentials (use the HTTPS_PROXY Toolgate set)')
    if (!egressRuleFor(grant.rules, host, port)) {
      grant.log?.warn(`egress to ${host}:${port} refused: not in sandbox.network (${grant.rules.map((r) => r.text).join(', ')})`)
      throw new Refused(
        403,
        `Toolgate: ${host}:${port} is not in sandbox.network of server "${grant.server}" (allowed: ${grant.rules.map((r) => r.text).join(', ')})`,
      )
    }
    return grant
  }

  private async onConnect(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => undefined)
    const target = parseAuthority(req.url ?? '')
    try {
      if (!target) throw new Refused(400, `Toolgate egress proxy: bad CONNECT target "${req.url ?? ''}"`)
      const grant = this.check(this.grantOf(req), target.host, target.port)
      const upstream = await connectTo(await resolveAllowed(target.host), target.port).catch((e: unknown) => {
        throw e instanceof Refused ? e : new Refused(502, `Toolgate egress proxy: cannot reach ${target.host}:${target.port}: ${(e as Error).message}`)
      })
      if (grant.released) return void upstream.destroy() // the server stopped meanwhile
      grant.open.add(client)
      grant.open.add(upstream)
      const g = grant
      const forget = (): void => {
        g.open.delete(client)
        g.open.delete(upstream)
        client.destroy()
        upstream.destroy()
      }
      upstream.on('error', forget).on('close', forget)
      client.on('close', forget)
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      client.pipe(upstream).pipe(client)
    } catch (e) {
      const r = e instanceof Refused ? e : new Refused(502, (e as Error).message)
      const extra = r.status === 407 ? 'Proxy-Authenticate: Basic realm="toolgate"\r\n' : ''
      client.end(
        `HTTP/1.1 ${r.status} ${http.STATUS_CODES[r.status] ?? 'Error'}\r\n${extra}Content-Type: text/plain\r\nConnection: close\r\n\r\n${r.message}\n`,
      )
    }
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const refuse = (r: Refused): void => {
      if (res.headersSent) return void res.destroy()
      res.writeHead(r.status, {
        'content-type': 'text/plain',
        connection: 'close',
        ...(r.status === 407 ? { 'proxy-authenticate': 'Basic realm="toolgate"' } : {}),
      })
      res.end(`${r.message}\n`)
    }
    try {
      let url: URL
      try {
        url = new URL(req.url ?? '')
      } catch {
        throw new Refused(400, 'Toolgate egress proxy: send absolute-form requests (http://host/path) or CONNECT')
      }
      if (url.protocol !== 'http:') throw new Refused(400, `Toolgate egress proxy: ${url.protocol} goes through CONNECT`)
      const port = Number(url.port || 80)
      const host = normalizeHost(url.hostname)
      if (!host) throw new Refused(400, `Toolgate egress proxy: bad host "${url.hostname}"`)
      const grant = this.check(this.grantOf(req), host, port)
      const addresses = await resolveAllowed(host)
      const headers = { ...req.headers }
      delete headers['proxy-authorization']
      delete headers['proxy-connection']
      headers.host = url.host
      // one request per upstream connection: a kept-alive client connection cannot be steered elsewhere
      headers.connection = 'close'
      const upstream = http.request({
        host: addresses[0],
        port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
        timeout: CONNECT_TIMEOUT_MS,
      })
      grant.open.add(req.socket)
      req.socket.once('close', () => grant.open.delete(req.socket))
      upstream.on('timeout', () => upstream.destroy(new Error('no answer')))
      upstream.on('error', (e) => refuse(new Refused(502, `Toolgate egress proxy: ${host}:${port}: ${e.message}`)))
      upstream.on('response', (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      })
      req.pipe(upstream)
    } catch (e) {
      refuse(e instanceof Refused ? e : new Refused(502, (e as Error).message))
    }
  }
}

/** `host:port` of a CONNECT (IPv6 in brackets); null when it is not one. */
export function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority.trim())
  if (!m) return null
  const host = normalizeHost(m[1])
  const port = Number(m[2])
  return host && port >= 1 && port <= 65535 ? { host, port } : null
}

let shared: EgressProxy | null = null

/** The process's egress proxy (created on first use; started by startEgressProxy). */
export function egressProxy(): EgressProxy {
  shared ??= new EgressProxy()
  return shared
}

/** Starts the process's egress proxy (idempotent): the core does it before any server starts. */
export async function startEgressProxy(): Promise<EgressProxy> {
  const p = egressProxy()
  await p.start()
  return p
}
