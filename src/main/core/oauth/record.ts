// What Toolgate keeps per server after a sign-in, in the secret store's "oauth" namespace (one
// encrypted entry named after the server, never listed among the user's secrets): the tokens,
// the client registration it got by dynamic registration, and the resource they were issued
// for. A record is bound to that resource: when the server's URL changes, the tokens are never
// sent to the new one.
import { OAuthClientInformationFullSchema, OAuthTokensSchema } from '@modelcontextprotocol/core'
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client'
import { z } from 'zod'

/** The part of the secret store's API this feature uses (src/main/core/secrets: `namespace('oauth')`). */
export interface SecretSlots {
  get(name: string): string | undefined
  set(name: string, value: string): void
  delete(name: string): boolean
  list(): Array<{ name: string }>
}

// built on first use (a server with OAuth): docs/performance.md, memory
const RecordSchema = z.lazy(() =>
  z.object({
    v: z.literal(1),
    /** the server URL (without query and fragment) the grant is for (RFC 8707 resource) */
    resource: z.string(),
    /** from dynamic client registration (RFC 7591); a client from the config is never stored */
    client: z.unknown().optional(),
    tokens: z.unknown().optional(),
    /** when the access token expires (ms since the epoch), from expires_in */
    expires_at: z.number().optional(),
    /** expires_in at issue (ms), to refresh a fifth of the lifetime early (at most a minute) */
    lifetime_ms: z.number().optional(),
    signed_in_at: z.string().optional(),
    /** the authorization server the tokens came from */
    authorization_server: z.string().optional(),
    /** the scope the grant asked for (a 403 insufficient_scope for no more than this cannot be helped by another sign-in) */
    scope_requested: z.string().optional(),
  }),
)

export interface OAuthRecord {
  resource: string
  client?: OAuthClientInformationMixed
  tokens?: OAuthTokens
  expires_at?: number
  lifetime_ms?: number
  signed_in_at?: string
  authorization_server?: string
  /** the scope the grant asked for */
  scope_requested?: string
}

/** The resource a server URL names: no query (it may carry a key), no fragment, no credentials. */
export function resourceOf(url: string): string {
  const u = new URL(url)
  u.hash = ''
  u.search = ''
  u.username = ''
  u.password = ''
  return u.href
}

export class OAuthRecords {
  constructor(private readonly slots: SecretSlots) {}

  /** The record of `server` when it was made for `url`; one made for another URL reads as none. */
  read(server: string, url: string): OAuthRecord | null {
    const r = this.parse(server)
    return r && r.resource === resourceOf(url) ? r : null
  }

  private parse(server: string): OAuthRecord | null {
    const raw = this.slots.get(server)
    if (raw === undefined) return null
    let parsed: z.infer<typeof RecordSchema>
    try {
      parsed = RecordSchema.parse(JSON.parse(raw))
    } catch {
      return null // unreadable: as if never signed in (the next sign-in overwrites it)
    }
    const client = OAuthClientInformationFullSchema.partial({ redirect_uris: true }).safeParse(parsed.client)
    const tokens = OAuthTokensSchema.safeParse(parsed.tokens)
    return {
      resource: parsed.resource,
      ...(client.success ? { client: client.data } : {}),
      ...(tokens.success ? { tokens: tokens.data } : {}),
      ...(parsed.expires_at !== undefined ? { expires_at: parsed.expires_at } : {}),
      ...(parsed.lifetime_ms !== undefined ? { lifetime_ms: parsed.lifetime_ms } : {}),
      ...(parsed.signed_in_at ? { signed_in_at: parsed.signed_in_at } : {}),
      ...(parsed.authorization_server ? { authorization_server: parsed.authorization_server } : {}),
      ...(parsed.scope_requested ? { scope_requested: parsed.scope_requested } : {}),
    }
  }

  /** Changes the record of `server` for `url` (a record for another URL is replaced). */
  update(server: string, url: string, change: (r: OAuthRecord) => OAuthRecord): OAuthRecord {
    const next = change(this.read(server, url) ?? { resource: resourceOf(url) })
    this.slots.set(server, JSON.stringify({ v: 1, ...next, resource: resourceOf(url) }))
    return next
  }

  /** Forgets everything about `server` (tokens and client registration). */
  remove(server: string): boolean {
    return this.slots.delete(server)
  }

  /** Deletes the record of `server`, whatever URL it was made for, and answers what it held (null: none, or unreadable). */
  take(server: string): OAuthRecord | null {
    const r = this.parse(server)
    this.slots.delete(server)
    return r
  }

  /** The servers that have a record. */
  servers(): string[] {
    return this.slots.list().map((e) => e.name)
  }
}

/** The tokens with their expiry, as saved after a grant. */
export function withTokens(r: OAuthRecord, tokens: OAuthTokens, now: number): OAuthRecord {
  const lifetime = typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? tokens.expires_in * 1000 : undefined
  const { expires_at: _e, lifetime_ms: _l, ...rest } = r
  return {
    ...rest,
    tokens,
    ...(lifetime !== undefined ? { expires_at: now + lifetime, lifetime_ms: lifetime } : {}),
    ...(tokens.issuer ? { authorization_server: tokens.issuer } : {}),
  }
}

export function withoutTokens(r: OAuthRecord): OAuthRecord {
  const { tokens: _t, expires_at: _e, lifetime_ms: _l, ...rest } = r
  return rest
}

/** Refresh this long before expiry: a fifth of the token's lifetime, at most a minute. */
export function refreshMargin(r: OAuthRecord): number {
  return Math.min(60_000, Math.floor((r.lifetime_ms ?? 300_000) / 5))
}

/** True when the access token is expired or about to be. */
export function expiresSoon(r: OAuthRecord, now: number): boolean {
  return r.tokens !== undefined && r.expires_at !== undefined && now >= r.expires_at - refreshMargin(r)
}

/** True when the access token is expired or about to be, and a refresh token can renew it. */
export function shouldRefresh(r: OAuthRecord, now: number): boolean {
  return Boolean(r.tokens?.refresh_token) && expiresSoon(r, now)
}
