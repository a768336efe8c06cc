// The masking rules for everything Toolgate shows or logs about an upstream:
// secret-looking names and token-like values, URL credentials, secret query values and
// token-like path segments, `--secret-flag value` and `SECRET_KEY=value` arguments. Code after
// an interpreter's -e / -c is never masked: the reviewer must see what will run.
import { findReferences, substitute } from '../../../shared/secret-refs'
import { isSecretName } from '../../../shared/secret-names'

export const MASK = '***'

export { isSecretName }

/** Well-known token prefixes (API keys of common services). */
const TOKEN_PREFIX = /^(sk|pk|rk)[-_][A-Za-z0-9]|^(ghp|gho|ghs|ghu|ghr|github_pat|glpat|xox[abprs])[-_]/

/** Flags whose next argument is program code (node -e, python -c, sh -c, …). */
const CODE_FLAGS = new Set(['-e', '--eval', '-c', '--command', '--print'])

/**
 * Env keys that change what code a process loads. Their values are never masked on review
 * surfaces: hiding them would hide what runs.
 */
const CODE_ENV =
  /^(NODE_OPTIONS|NODE_PATH|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_[A-Z_]+|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONINSPECT|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|BASH_ENV|ENV|PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|GIT_SSH_COMMAND|PROMPT_COMMAND|ELECTRON_RUN_AS_NODE)$/

/** Values this long with letters and digits mixed look like tokens even under a harmless name. */
export function looksLikeToken(value: string, minLength = 24): boolean {
  if (TOKEN_PREFIX.test(value) && value.length >= 8) return true
  return value.length >= minLength && /[A-Za-z]/.test(value) && /\d/.test(value) && !/[\s/\\]/.test(value)
}

/** A path segment that carries a credential (webhook-style URLs). */
export function secretPathSegment(segment: string): boolean {
  return looksLikeToken(safeDecode(segment), 20)
}

export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Placeholders that stand for `${secret:…}`/`${env:…}` while a URL is parsed (they survive host, userinfo, path and query). */
const PLACEHOLDER = /tgref(\d+)ref/g
const ONLY_PLACEHOLDER = /^tgref\d+ref$/

/** The text with each reference replaced by a placeholder that URL parsing keeps, and the way back. */
export function referencesAside(raw: string): { text: string; restore(s: string): string; isRef(s: string): boolean } {
  const refs: string[] = []
  const text = substitute(raw, (r) => `tgref${refs.push(`\${${r.kind}:${r.name}}`) - 1}ref`)
  return {
    text,
    restore: (s) => (refs.length ? s.replace(PLACEHOLDER, (m, i: string) => refs[Number(i)] ?? m) : s),
    isRef: (s) => refs.length > 0 && ONLY_PLACEHOLDER.test(s),
  }
}

/**
 * The URL with its credentials masked. References (`https://${secret:U}@host/…?key=${secret:K}`)
 * are shown as written: they name a secret, they are not one.
 */
export function maskUrl(raw: string): string {
  const { text, restore, isRef } = referencesAside(raw)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return looksLikeToken(raw) && !onlyReferences(raw) ? MASK : raw
  }
  if (url.username && !isRef(url.username)) url.username = MASK
  if (url.password && !isRef(url.password)) url.password = MASK
  const search = [...url.searchParams.entries()]
    .map(([k, v]) => `${encodeURIComponent(k)}=${!isRef(v) && (isSecretName(k) || looksLikeToken(v)) ? MASK : encodeURIComponent(v)}`)
    .join('&')
  const path = url.pathname
    .split('/')
    .map((seg) => (!isRef(seg) && secretPathSegment(seg) ? MASK : seg))
    .join('/')
  url.search = ''
  url.hash = ''
  const origin = url.toString().slice(0, url.toString().length - url.pathname.length)
  return restore(`${origin}${path}${search ? `?${search}` : ''}`)
}

function maskValue(value: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return maskUrl(value)
  // KEY=value pairs in argv (e.g. `env API_KEY=... cmd`)
  const kv = /^([A-Za-z_][\w.-]*)=(.*)$/s.exec(value)
  if (kv && isSecretName(kv[1])) return `${kv[1]}=${MASK}`
  if (kv && /^[a-z][a-z0-9+.-]*:\/\//i.test(kv[2])) return `${kv[1]}=${maskUrl(kv[2])}`
  return looksLikeToken(value) ? MASK : value
}

/** `--token=${secret:GH}` shows as written: the reference names a secret, it is not one (nothing token-like around it). */
export function onlyReferences(value: string): boolean {
  return findReferences(value).length > 0 && !/[A-Za-z0-9_+/=-]{8,}/.test(substitute(value, () => ' '))
}

/** argv with secrets masked; the argument after -e / -c (code) is kept as it is, and so are ${secret:…} references. */
export function maskArgs(args: readonly string[]): string[] {
  const out: string[] = []
  let next: 'mask' | 'code' | null = null
  for (const arg of args) {
    if (onlyReferences(arg)) {
      out.push(arg)
      next = null
      continue
    }
    if (next) {
      out.push(next === 'mask' ? MASK : arg)
      next = null
      continue
    }
    const flag = /^(--?[\w.-]+)(=(.*))?$/s.exec(arg)
    if (flag) {
      const [, name, eq, value] = flag
      if (eq !== undefined && onlyReferences(value ?? '')) {
        out.push(arg)
        continue
      }
      if (CODE_FLAGS.has(name) || name === '--import' || name === '--require') {
        if (eq === undefined && CODE_FLAGS.has(name)) next = 'code'
        out.push(arg)
      } else if (isSecretName(name)) {
        if (eq === undefined) next = 'mask'
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

/** On review surfaces: is this env value hidden? (Code-loading keys never are.) */
export function envValueMasked(name: string, value: string): boolean {
  if (CODE_ENV.test(name) || onlyReferences(value)) return false
  return isSecretName(name) || looksLikeToken(value) || /^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)
}
