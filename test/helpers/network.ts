// Network targets for the isolation tests: the one outside host this machine reaches (the npm
// registry; the tests that need it skip with the reason when it cannot be reached), the host's
// own non-loopback addresses, and a TCP listener that answers "hello".
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'

export const REGISTRY_HOST = 'registry.npmjs.org'

let reachable: Promise<boolean> | null = null

/** Whether this machine reaches registry.npmjs.org:443 (asked once per test file). */
export function registryReachable(): Promise<boolean> {
  reachable ??= new Promise((resolve) => {
    const s = net.connect({ host: REGISTRY_HOST, port: 443 })
    const done = (ok: boolean) => {
      s.destroy()
      resolve(ok)
    }
    s.setTimeout(5000, () => done(false))
    s.on('connect', () => done(true))
    s.on('error', () => done(false))
  })
  return reachable
}

export const NO_REGISTRY = `${REGISTRY_HOST}:443 cannot be reached from this machine, so there is no outside network to test against`

/** The host's own addresses other than loopback (IPv4). */
export function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfoIPv4 => a !== undefined && a.family === 'IPv4' && !a.internal)
    .map((a) => a.address)
}

/** The host's own global IPv6 addresses (not loopback, not link-local: those need a zone). */
export function hostAddresses6(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfoIPv6 => a !== undefined && a.family === 'IPv6' && !a.internal && !/^fe[89ab]/i.test(a.address))
    .map((a) => a.address)
}

/** The host's default gateways (from /proc/net/route and ipv6_route): pasta would map them to the host's loopback unless told not to. */
export function defaultGateways(): string[] {
  const read = (file: string): string => {
    try {
      return fs.readFileSync(file, 'utf8')
    } catch {
      return ''
    }
  }
  const out = new Set<string>()
  for (const line of read('/proc/net/route').split('\n').slice(1)) {
    const [, dest, gw] = line.trim().split(/\s+/)
    if (dest !== '00000000' || !gw || gw === '00000000') continue
    // little-endian hex
    const bytes = (gw.match(/../g) ?? []).map((h) => parseInt(h, 16)).reverse()
    if (bytes.length === 4) out.add(bytes.join('.'))
  }
  for (const line of read('/proc/net/ipv6_route').split('\n')) {
    const [dest, len, , , hop] = line.trim().split(/\s+/)
    if (dest !== '0'.repeat(32) || len !== '00' || !hop || /^0+$/.test(hop)) continue
    out.add((hop.match(/.{4}/g) ?? []).join(':'))
  }
  return [...out]
}

/** A TCP listener answering "hello\n"; `host` 127.0.0.1 (loopback only) or 0.0.0.0 (every address). */
export async function helloListener(host = '127.0.0.1'): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((s) => s.on('error', () => undefined).end('hello\n'))
  await new Promise<void>((r) => server.listen(0, host, r))
  const port = (server.address() as net.AddressInfo).port
  return { port, close: () => new Promise((r) => server.close(() => r())) }
}

/** A listener on an abstract Unix socket (Linux: bound to a network namespace, not to a file). */
export async function abstractListener(name: string): Promise<{ close: () => Promise<void> }> {
  const server = net.createServer((s) => s.on('error', () => undefined).end('hello\n'))
  await new Promise<void>((r) => server.listen({ path: `\0${name}` }, r))
  return { close: () => new Promise((r) => server.close(() => r())) }
}
