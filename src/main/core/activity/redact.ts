// What of an agent's arguments goes on record: their keyed digest always, and (with record_args) a
// preview with secrets masked (secret-named keys, token-looking values, and the target server's
// own env/header/URL secrets via makeRedactor), every string and the whole preview size-capped.
import type { ServerConfig } from '../../../shared/config-schema'
import { createHmac } from 'node:crypto'
import { canonicalJson } from '../state/hash'
import { makeRedactor } from '../masking/target'
import { isSecretName, looksLikeToken, MASK, maskUrl } from '../masking/mask'

export const PREVIEW_MAX_CHARS = 1024
const STRING_MAX_CHARS = 200
const MAX_DEPTH = 6
const MAX_ENTRIES = 50

export type Redactor = (text: string) => string

const redactors = new WeakMap<ServerConfig, Redactor>()

/** The masking function for one server's secrets (cached per config object). */
export function redactorFor(config: ServerConfig | undefined): Redactor {
  if (!config) return (t) => t
  let r = redactors.get(config)
  if (!r) {
    r = makeRedactor(config)
    redactors.set(config, r)
  }
  return r
}

/**
 * HMAC-SHA256 (hex) of the canonical JSON of the arguments, keyed by `<data-dir>/args.key`: the
 * same args give the same digest in one data dir, and without the key a short secret argument (a
 * 4-digit PIN) cannot be found by hashing guesses.
 */
export function argsHmac(key: Buffer, args: unknown): string {
  return createHmac('sha256', key)
    .update(canonicalJson(args ?? {}))
    .digest('hex')
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+/gi
/** `Bearer x`, `Basic x`: an Authorization value written out */
const AUTH_SCHEME = /\b(bearer|basic|token)(\s+)[^\s"'`,;]+/gi
/**
 * `NAME=value` and `NAME: value` where NAME looks secret (`API_KEY=…`, `password: …`, `"token": "…"`);
 * a colon needs a space or a quote after it, so a tool id such as `keycloak:list_users` stays readable
 */
const NAMED_VALUE = /([A-Za-z_][\w.-]{0,63})("?\s*=\s*"?|"?:\s+"?|":")([^\s"'`,;&]+)/g
/** `--password value`, `-p`-style flags with a secret-looking name, then their value */
const SECRET_FLAG = /(--?[A-Za-z][\w.-]{0,63})(\s+)([^\s"'`,;-][^\s"'`,;]*)/g
/** runs that may be tokens (8+: well-known prefixes such as `sk-` are short) */
const RUN = /[^\s"'`,;:=()[\]{}<>]{8,}/g

/**
 * Masks secrets inside free text (argument strings, queries, error messages): the server's own
 * secrets, URL credentials and secret query values, `Bearer …`, secret-named `NAME=value` /
 * `NAME: value` / `--secret-flag value`, and token-looking runs.
 */
export function maskText(text: string, redact: Redactor = (t) => t): string {
  return redact(text)
    .replace(URL_IN_TEXT, (url) => maskUrl(url))
    .replace(AUTH_SCHEME, (_m, scheme: string, space: string) => `${scheme}${space}${MASK}`)
    .replace(NAMED_VALUE, (m, name: string, sep: string, value: string) => (isSecretName(name) && value !== MASK ? `${name}${sep}${MASK}` : m))
    .replace(SECRET_FLAG, (m, flag: string, space: string, value: string) => (isSecretName(flag) && value !== MASK ? `${flag}${space}${MASK}` : m))
    .replace(RUN, (run) => (looksLikeToken(run) ? MASK : run))
}

/** Only token-looking runs: for names (a `server:tool` id), which the other rules would garble. */
export function maskTokens(text: string): string {
  return text.replace(RUN, (run) => (looksLikeToken(run) ? MASK : run))
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function scrub(value: unknown, redact: Redactor, depth: number): unknown {
  // clipped before masking (bounded work on huge strings), with room for a secret that crosses the final cut
  if (typeof value === 'string') return clip(maskText(value.slice(0, STRING_MAX_CHARS * 4), redact), STRING_MAX_CHARS)
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_DEPTH) return '…'
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_ENTRIES).map((v) => scrub(v, redact, depth + 1))
    if (value.length > MAX_ENTRIES) out.push(`… ${value.length - MAX_ENTRIES} more`)
    return out
  }
  const out: Record<string, unknown> = {}
  const entries = Object.entries(value as Record<string, unknown>)
  for (const [k, v] of entries.slice(0, MAX_ENTRIES)) {
    const key = clip(maskText(k.slice(0, 400), redact), 100)
    out[key] = isSecretName(k) && v !== null && v !== undefined && v !== '' ? MASK : scrub(v, redact, depth + 1)
  }
  if (entries.length > MAX_ENTRIES) out['…'] = `${entries.length - MAX_ENTRIES} more`
  return out
}

/** A redacted JSON preview of the arguments, at most PREVIEW_MAX_CHARS characters. */
export function argsPreview(args: unknown, redact: Redactor): string {
  return clip(JSON.stringify(scrub(args ?? {}, redact, 0)) ?? '{}', PREVIEW_MAX_CHARS)
}
