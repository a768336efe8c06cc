// describeTarget: a one-line, secret-free description of what an upstream runs or connects to,
// for logs, the UI and `upstream_servers`. Env values and headers are never part of it; URL
// credentials, secret-looking query values and secret-looking argv values are masked.
import type { ServerConfig } from '../../../shared/config-schema'
import { usesStdio } from './transport'

const MASK = '***'
const SECRET_NAME = /(key|token|secret|passw|pwd|auth|bearer|credential|cookie|session|signature|sig$|jwt)/i

/** Values this long with letters and digits mixed look like tokens even under a harmless name. */
function looksLikeToken(value: string): boolean {
  return value.length >= 24 && /[A-Za-z]/.test(value) && /\d/.test(value) && !/[\s/\\]/.test(value)
}

export function maskUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return looksLikeToken(raw) ? MASK : raw
  }
  if (url.username) url.username = MASK
  if (url.password) url.password = MASK
  const params = [...url.searchParams.entries()]
  if (params.length > 0) {
    const masked = params.map(([k, v]) => {
      const secret = SECRET_NAME.test(k) || looksLikeToken(v)
      return `${encodeURIComponent(k)}=${secret ? MASK : encodeURIComponent(v)}`
    })
    url.search = ''
    return `${url.toString().replace(/\?$/, '')}?${masked.join('&')}`
  }
  return url.toString()
}

/** Quote for readability only (this string is never executed). */
function quote(arg: string): string {
  return arg !== '' && !/[\s'"\\]/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}

function maskArgs(args: readonly string[]): string[] {
  const out: string[] = []
  let maskNext = false
  for (const arg of args) {
    if (maskNext) {
      out.push(MASK)
      maskNext = false
      continue
    }
    const flag = /^(--?[\w.-]+)(=(.*))?$/s.exec(arg)
    if (flag) {
      const [, name, eq, value] = flag
      if (SECRET_NAME.test(name)) {
        if (eq === undefined) maskNext = true
        out.push(eq === undefined ? name : `${name}=${MASK}`)
      } else {
        out.push(eq === undefined ? name : `${name}=${maskValue(value ?? '')}`)
      }
      continue
    }
    out.push(maskValue(arg))
  }
  return out
}

function maskValue(value: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return maskUrl(value)
  // KEY=value pairs in argv (e.g. `env API_KEY=... cmd`)
  const kv = /^([A-Za-z_][\w.-]*)=(.*)$/s.exec(value)
  if (kv && SECRET_NAME.test(kv[1])) return `${kv[1]}=${MASK}`
  return looksLikeToken(value) ? MASK : value
}

/** "node /x/y.js --flag" for stdio upstreams, the (masked) URL for HTTP ones. */
export function describeTarget(config: ServerConfig): string {
  if (usesStdio(config) && config.command) {
    return [config.command, ...maskArgs(config.args ?? [])].map(quote).join(' ')
  }
  if (config.url) return maskUrl(config.url)
  return '(no command or url)'
}

/**
 * A function that masks this server's secrets in any text (error messages, logs, stderr lines):
 * env values, header values, URL credentials and secret-looking query/argv values. Error texts
 * from fetch and the SDK quote the URL, and upstreams sometimes echo their own env.
 */
export function makeRedactor(config: ServerConfig): (text: string) => string {
  const secrets = new Set<string>()
  const add = (v: string | undefined | null): void => {
    if (v && v.length >= 4) secrets.add(v)
  }
  for (const v of Object.values(config.env ?? {})) if (v.length >= 6) add(v)
  for (const v of Object.values(config.headers ?? {})) {
    add(v)
    const parts = /^(\w+)\s+(.+)$/.exec(v) // "Bearer <token>", "Basic <b64>"
    if (parts) add(parts[2])
  }
  const urlPairs: Array<[string, string]> = []
  for (const raw of [config.url, ...(config.args ?? []).filter((a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a))]) {
    if (!raw) continue
    urlPairs.push([raw, maskUrl(raw)])
    try {
      const url = new URL(raw)
      for (const part of [url.username, url.password]) {
        add(part)
        add(safeDecode(part))
      }
      for (const [k, v] of url.searchParams) if (SECRET_NAME.test(k) || looksLikeToken(v)) add(v)
    } catch {
      // not a URL after all
    }
  }
  const args = config.args ?? []
  const masked = maskArgs(args)
  args.forEach((a, i) => {
    if (masked[i] === MASK) add(a)
    const eq = /^--?[\w.-]+=(.*)$/s.exec(a)
    if (eq && masked[i]?.endsWith(`=${MASK}`)) add(eq[1])
  })
  const ordered = [...secrets].sort((a, b) => b.length - a.length)
  return (text: string): string => {
    let out = text
    for (const [raw, safe] of urlPairs) out = out.split(raw).join(safe)
    for (const s of ordered) if (out.includes(s)) out = out.split(s).join(MASK)
    return out
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
