// Who is calling: the admin API key (Authorization: Bearer or X-API-Key), an agent token, or
// nobody. Keys are compared in constant time (over SHA-256 digests, so lengths never leak).
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export type Principal = { kind: 'admin'; asAgent?: string } | { kind: 'agent'; agent: string; tokenId: string }

const digest = (s: string): Buffer => createHash('sha256').update(s).digest()

/** the configured admin keys' digests, made once per key (a request hashes only what it presents) */
const keyDigests = new Map<string, Buffer>()
const KEY_DIGESTS_MAX = 16

function keyDigest(key: string): Buffer {
  let d = keyDigests.get(key)
  if (!d) {
    if (keyDigests.size >= KEY_DIGESTS_MAX) keyDigests.clear()
    d = digest(key)
    keyDigests.set(key, d)
  }
  return d
}

export function presentedKey(req: IncomingMessage): string | null {
  const auth = req.headers.authorization
  if (typeof auth === 'string' && /^Bearer\s+/i.test(auth)) return auth.replace(/^Bearer\s+/i, '').trim()
  const x = req.headers['x-api-key']
  if (typeof x === 'string' && x.length > 0) return x.trim()
  return null
}

export function authenticate(
  req: IncomingMessage,
  apiKeys: string[],
  agentToken: (presented: string) => { agent: string; tokenId: string } | null,
): Principal | null {
  const key = presentedKey(req)
  if (!key) return null
  const presented = digest(key)
  if (apiKeys.some((k) => timingSafeEqual(presented, keyDigest(k)))) {
    // the admin may open a session scoped to a configured agent (the stdio bridge's --agent)
    const as = req.headers['x-toolgate-agent']
    return typeof as === 'string' && as.length > 0 ? { kind: 'admin', asAgent: as } : { kind: 'admin' }
  }
  const t = agentToken(key)
  return t ? { kind: 'agent', ...t } : null
}

/** DNS-rebinding defense: Host must name this loopback listener; Origin, when present, too. */
export function hostAllowed(req: IncomingMessage, allowedHosts: Set<string>): boolean {
  const host = req.headers.host
  if (!host || !allowedHosts.has(host.toLowerCase())) return false
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    return allowedHosts.has(new URL(origin).host.toLowerCase())
  } catch {
    return false
  }
}

export function allowedHostsFor(host: string, port: number): Set<string> {
  const set = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
  set.add(`${host.toLowerCase()}:${port}`)
  return set
}
