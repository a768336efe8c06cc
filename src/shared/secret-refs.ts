// `${secret:NAME}` and `${env:NAME}` references in a server's env, headers, args and url: the
// syntax, finding them and substituting values. Pure: the config schema checks the syntax with
// it, the core resolves with it when a server starts, the UI shows which fields use secrets.
import { isSecretName } from './secret-names'

/** A secret's name: letters, digits, `_`, `-`, `.`; starts with a letter or `_`. */
export const SECRET_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/
export const SECRET_NAME_RULE = 'a name starts with a letter or "_" and holds only letters, digits, "_", "-" and "." (at most 128)'

export type RefKind = 'secret' | 'env'

export interface Reference {
  kind: RefKind
  name: string
}

const REF_GLOBAL = /\$\{(secret|env):([A-Za-z_][A-Za-z0-9_.-]{0,127})\}/g
const REF_START = /\$\{(secret|env):/g

/** The references in one string, in order (duplicates kept). */
export function findReferences(value: string): Reference[] {
  const out: Reference[] = []
  for (const m of value.matchAll(REF_GLOBAL)) out.push({ kind: m[1] as RefKind, name: m[2] })
  return out
}

/** Whether the string holds anything that starts like a reference (well-formed or not). */
export function mentionsReference(value: string): boolean {
  REF_START.lastIndex = 0
  return REF_START.test(value)
}

/** Why a string's references are malformed (`${secret:}`, `${env:A B}`, a missing `}`), or null. */
export function referenceProblem(value: string): string | null {
  const starts = [...value.matchAll(REF_START)].length
  const whole = [...value.matchAll(REF_GLOBAL)].length
  if (starts === whole) return null
  return `malformed reference in "${value.length > 80 ? value.slice(0, 80) + '…' : value}": write \${secret:NAME} or \${env:NAME}, where ${SECRET_NAME_RULE}`
}

/** Replaces every reference with what `lookup` gives for it. */
export function substitute(value: string, lookup: (ref: Reference) => string): string {
  return value.replace(REF_GLOBAL, (_m, kind: string, name: string) => lookup({ kind: kind as RefKind, name }))
}

/** The fields of a server entry that may carry references. */
export interface ReferencingFields {
  env?: Record<string, string>
  headers?: Record<string, string>
  args?: string[]
  url?: string
  oauth?: { client_secret?: string }
}

/** Every string of those fields, with a path for messages ("env.GITHUB_TOKEN", "args[2]", "url"). */
export function referencingStrings(s: ReferencingFields): Array<{ path: Array<string | number>; value: string }> {
  const out: Array<{ path: Array<string | number>; value: string }> = []
  for (const [k, v] of Object.entries(s.env ?? {})) out.push({ path: ['env', k], value: v })
  for (const [k, v] of Object.entries(s.headers ?? {})) out.push({ path: ['headers', k], value: v })
  ;(s.args ?? []).forEach((v, i) => out.push({ path: ['args', i], value: v }))
  if (s.url !== undefined) out.push({ path: ['url'], value: s.url })
  if (s.oauth?.client_secret !== undefined) out.push({ path: ['oauth', 'client_secret'], value: s.oauth.client_secret })
  return out
}

/** The names of the secrets a server entry uses (sorted, unique). */
export function secretsUsedBy(s: ReferencingFields): string[] {
  const names = new Set<string>()
  for (const { value } of referencingStrings(s)) for (const r of findReferences(value)) if (r.kind === 'secret') names.add(r.name)
  return [...names].sort()
}

/** The same string with every reference replaced by a placeholder (to check the shape of a URL that holds references). */
export function withPlaceholders(value: string): string {
  return substitute(value, () => 'x')
}

/**
 * Whether an env or header value looks like a secret worth moving into the store: by its name
 * (GITHUB_TOKEN, Authorization, X-Api-Key) or its look (a long mix of letters and digits). A
 * value that already is a reference, or is empty, is not.
 */
export function looksSecret(key: string, value: string): boolean {
  if (!value || findReferences(value).length > 0) return false
  if (isSecretName(key)) return true
  return value.length >= 24 && /[A-Za-z]/.test(value) && /\d/.test(value) && !/[\s/\\]/.test(value)
}

/** A secret name made from an env or header key and the server: `GITHUB_TOKEN`, `remote_Authorization` → `REMOTE_AUTHORIZATION`. */
export function secretNameFor(server: string, key: string, envStyle: boolean): string {
  const base = envStyle ? key : `${server}_${key}`
  const name = base.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[^A-Za-z_]+/, '_')
  return (envStyle ? name : name.toUpperCase()).slice(0, 128)
}
