// What an upstream runs or connects to, secret-free: the one-line target for logs, the full
// launch for review surfaces (issue 11, point 2), and a redactor that masks this server's
// secrets in any text (logs, last_error). The rules themselves live in mask.ts.
import type { ServerConfig } from '../../../shared/config-schema'
import { shellQuote, type ServerLaunch } from '../../../shared/launch'
import { findReferences, substitute } from '../../../shared/secret-refs'
import { envValueMasked, looksLikeToken, MASK, maskArgs, maskUrl, referencesAside, safeDecode, isSecretName, secretPathSegment } from './mask'
import { usesStdio } from './transport'

export { maskUrl }

/** "node /x/y.js --flag" for stdio upstreams, the (masked) URL for HTTP ones. Env values never appear. */
export function describeTarget(config: ServerConfig): string {
  if (usesStdio(config) && config.command) return [config.command, ...maskArgs(config.args ?? [])].map(shellQuote).join(' ')
  if (config.url) return maskUrl(config.url)
  return '(no command or url)'
}

/** The full launch for review: every argument, cwd, every env key (values masked only when secret-looking), URL, header names. */
export function describeLaunch(config: ServerConfig): ServerLaunch {
  if (usesStdio(config) && config.command) {
    const launch: ServerLaunch = { command: config.command }
    if (config.args?.length) launch.args = maskArgs(config.args)
    if (config.cwd !== undefined) launch.cwd = config.cwd
    const env = Object.entries(config.env ?? {})
    if (env.length) {
      launch.env = env.map(([name, value]) => {
        const masked = envValueMasked(name, value)
        return { name, value: masked ? MASK : value, masked }
      })
    }
    return launch
  }
  const launch: ServerLaunch = { url: config.url ? maskUrl(config.url) : '' }
  const headers = Object.keys(config.headers ?? {})
  if (headers.length) launch.header_names = headers
  return launch
}

/**
 * A function that masks this server's secrets in any text (error messages, logs, stderr lines):
 * every env value whatever its length, header values, URL credentials, secret-looking query
 * values and path segments, and secret-looking argv values. Error texts from fetch and the SDK
 * quote the URL, and upstreams sometimes echo their own env.
 */
export function makeRedactor(config: ServerConfig, knownSecrets: readonly string[] = []): (text: string) => string {
  const secrets = new Set<string>()
  /** values too short to replace inside words: replaced only where they stand alone */
  const shortSecrets = new Set<string>()
  const add = (v: string | undefined | null): void => {
    if (!v) return
    if (findReferences(v).length > 0) {
      // `${secret:NAME}` text names a secret, it is not one (its value comes in knownSecrets);
      // only a token-like literal written beside a reference is
      for (const part of substitute(v, () => '\0').split('\0')) if (looksLikeToken(part.trim(), 8)) add(part.trim())
      return
    }
    if (v.length >= 4) secrets.add(v)
    else shortSecrets.add(v)
  }
  /** a URL part as found (percent-encoded) and decoded; a reference in it is not a secret */
  const addUrlPart = (part: string, restore: (s: string) => string): void => {
    add(restore(part))
    add(restore(safeDecode(part)))
  }
  // values of ${secret:NAME} references, whatever they look like
  for (const v of knownSecrets) add(v)
  for (const v of Object.values(config.env ?? {})) add(v)
  for (const v of Object.values(config.headers ?? {})) {
    add(v)
    const parts = /^(\w+)\s+(.+)$/.exec(v) // "Bearer <token>", "Basic <b64>"
    if (parts) add(parts[2])
  }
  const urlPairs: Array<[string, string]> = []
  for (const raw of [config.url, ...(config.args ?? []).flatMap((a) => /[a-z][a-z0-9+.-]*:\/\/\S+/gi.exec(a) ?? [])]) {
    if (!raw) continue
    urlPairs.push([raw, maskUrl(raw)])
    try {
      const { text, restore } = referencesAside(raw)
      const url = new URL(text)
      for (const part of [url.username, url.password]) addUrlPart(part, restore)
      for (const [k, v] of url.searchParams) if (isSecretName(k) || looksLikeToken(v)) add(restore(v))
      for (const seg of url.pathname.split('/')) if (secretPathSegment(seg)) addUrlPart(seg, restore)
    } catch {
      // not a URL after all
    }
  }
  const args = config.args ?? []
  const masked = maskArgs(args)
  args.forEach((a, i) => {
    if (masked[i] === MASK) add(a)
    const eq = /^(?:--?[\w.-]+|[A-Za-z_][\w.-]*)=(.*)$/s.exec(a)
    if (eq && masked[i]?.endsWith(`=${MASK}`)) add(eq[1])
  })
  const ordered = [...secrets].sort((a, b) => b.length - a.length)
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const short = shortSecrets.size
    ? new RegExp(
        `(?<![A-Za-z0-9])(?:${[...shortSecrets]
          .sort((a, b) => b.length - a.length)
          .map(escape)
          .join('|')})(?![A-Za-z0-9])`,
        'g',
      )
    : null
  return (text: string): string => {
    let out = text
    for (const [raw, safe] of urlPairs) out = out.split(raw).join(safe)
    for (const s of ordered) if (out.includes(s)) out = out.split(s).join(MASK)
    if (short) out = out.replace(short, MASK)
    // any other URL in the text (an upstream may print one it was given): credentials, secret query values, token-like segments
    return out.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>()]+/gi, (u) => maskUrl(u))
  }
}
