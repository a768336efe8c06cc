// The secret values given to one server (its secret-looking env and header values, `${secret:}`
// values, URL credentials, secret arguments, OAuth tokens) and the masking of them in whatever
// comes back from it: tool definitions, results, progress, errors, stderr.
// Also their URL-encoded, JSON-escaped and base64 forms, and a value split across the strings of
// one answer (two text blocks, two JSON fields). Values under 3 characters are never masked (they
// would mask everything), 3–5 only where they stand alone.
import type { ServerConfig } from '../../../shared/config-schema'
import { findReferences, substitute } from '../../../shared/secret-refs'
import { isSecretName, looksLikeToken, MASK, maskArgs, referencesAside, safeDecode, secretPathSegment } from './mask'

export interface MaskRules {
  /** values this long or longer are masked wherever they appear */
  anywhere: number
  /** shorter values down to this length are masked only where they stand alone (not inside a word or number) */
  standalone: number
  /** `true`, `off`, `none` … are never masked where they stand alone (a flag's value would garble every result) */
  skipCommonWords: boolean
}

/** What reaches agents and files: 6+ characters anywhere, 3–5 standing alone. */
export const CONTENT_RULES: MaskRules = { anywhere: 6, standalone: 3, skipCommonWords: true }
/** Logs and error texts mask more (every env value, not only secret-looking ones): 4+ anywhere, shorter standing alone. */
export const LOG_RULES: MaskRules = { anywhere: 4, standalone: 1, skipCommonWords: false }

const COMMON_WORDS = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'null', 'none', 'nil', 'undefined'])
/** The smallest base64 run worth masking: shorter runs are too likely to occur by chance. */
const MIN_BASE64_CHARS = 8
/** Deeper than this, a value is masked as JSON text (no stack is exhausted by a hostile nesting). */
const MAX_DEPTH = 200

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The forms a value takes in transit, each with what replaces it: URL-encoded and JSON-escaped
 * (`***`), base64 alone or inside a longer base64 text at each byte alignment (the base64 of as
 * many `*`, so a blob stays valid base64 and decodes to stars where the secret was).
 */
export function encodedForms(value: string): Map<string, string> {
  const out = new Map<string, string>()
  const uri = encodeURIComponent(value)
  if (uri !== value) out.set(uri, MASK)
  const json = JSON.stringify(value).slice(1, -1)
  if (json !== value) out.set(json, MASK)
  const bytes = Buffer.from(value, 'utf8')
  const urlSafe = (b64: string): string => b64.replace(/\+/g, '-').replace(/\//g, '_')
  const stars = (n: number): string => Buffer.alloc(n, '*').toString('base64')
  const whole = bytes.toString('base64')
  for (const [f, r] of [
    [whole, stars(bytes.length)],
    [whole.replace(/=+$/, ''), stars(bytes.length).replace(/=+$/, '')],
  ]) {
    out.set(f, r)
    out.set(urlSafe(f), r)
  }
  // inside a longer base64 text the value starts at one of three byte alignments; the characters
  // that depend on the value alone (whole 3-byte groups) are the same whatever surrounds it
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64')
    const core = b64.slice(k === 0 ? 0 : 4, Math.floor((k + bytes.length) / 3) * 4)
    if (core.length >= MIN_BASE64_CHARS) {
      const r = stars((core.length / 4) * 3)
      out.set(core, r)
      out.set(urlSafe(core), r)
    }
  }
  out.delete(value)
  return out
}

interface Compiled {
  /** masked wherever they appear, longest first, each with what replaces it */
  anywhere: Array<[string, string]>
  /** the values themselves (not their encodings) that are masked anywhere: searched across string boundaries */
  raw: string[]
  standalone: RegExp | null
}

/** A set of secret values and the masking of them; values can be added while it is in use (OAuth tokens as they are issued). */
export class SecretMask {
  private readonly values = new Set<string>()
  private compiled: Compiled | null = null

  constructor(
    values: Iterable<string> = [],
    readonly rules: MaskRules = CONTENT_RULES,
  ) {
    this.add(values)
  }

  add(values: Iterable<string>): void {
    for (const v of values) {
      if (typeof v !== 'string' || v.length < this.rules.standalone || this.values.has(v)) continue
      if (v.length < this.rules.anywhere && this.rules.skipCommonWords && COMMON_WORDS.has(v.toLowerCase())) continue
      this.values.add(v)
      this.compiled = null
    }
  }

  get size(): number {
    return this.values.size
  }

  private compile(): Compiled {
    if (this.compiled) return this.compiled
    const anywhere = new Map<string, string>()
    const raw: string[] = []
    const short: string[] = []
    for (const v of this.values) {
      if (v.length >= this.rules.anywhere) {
        raw.push(v)
        anywhere.set(v, MASK)
        for (const [f, r] of encodedForms(v)) if (f.length >= Math.min(this.rules.anywhere, MIN_BASE64_CHARS) && !anywhere.has(f)) anywhere.set(f, r)
      } else short.push(v)
    }
    const byLength = (a: string, b: string): number => b.length - a.length
    short.sort(byLength)
    this.compiled = {
      anywhere: [...anywhere].sort((a, b) => byLength(a[0], b[0])),
      raw: raw.sort(byLength),
      standalone: short.length ? new RegExp(`(?<![A-Za-z0-9])(?:${short.map(escapeRe).join('|')})(?![A-Za-z0-9])`, 'g') : null,
    }
    return this.compiled
  }

  /** The text with every secret (and its encoded forms) replaced by `***`. */
  text(text: string): string {
    if (this.values.size === 0 || text.length === 0) return text
    const c = this.compile()
    let out = text
    for (const [v, r] of c.anywhere) if (out.includes(v)) out = out.split(v).join(r)
    if (c.standalone) out = out.replace(c.standalone, MASK)
    return out
  }

  /**
   * A copy of a JSON value with every string masked (object keys too). The strings are also read
   * as one text in order, and those under the same key as another (`text` of each content block),
   * so a secret split across two of them (two text blocks of a result, two fields) is masked in
   * each part.
   */
  value<T>(value: T): T {
    if (this.values.size === 0) return value
    const strings: string[] = []
    const byKey = new Map<string, number[]>()
    collect(value, strings, byKey, '', 0)
    const masked = this.segments(
      strings,
      [...byKey.values()].filter((g) => g.length > 1 && g.length < strings.length),
    )
    let i = 0
    return rebuild(
      value,
      () => masked[i++] ?? '',
      (k) => this.text(k),
      0,
      (deep) => this.deep(deep),
    ) as T
  }

  /** A subtree nested past MAX_DEPTH, masked as JSON text. */
  private deep(value: unknown): unknown {
    try {
      return JSON.parse(this.text(JSON.stringify(value)))
    } catch {
      return MASK
    }
  }

  /**
   * Each string masked, and the parts of a secret that crosses from one string into the next: in
   * the whole sequence, and in each group of them (indices in order) read as one text too.
   */
  segments(strings: readonly string[], groups: ReadonlyArray<readonly number[]> = []): string[] {
    if (strings.length < 2) return strings.map((s) => this.text(s))
    const cuts = new Map<number, Array<[number, number]>>()
    for (const group of [[...strings.keys()], ...groups]) this.crossings(group, strings, cuts)
    return strings.map((s, j) => {
      const ranges = cuts.get(j)
      return ranges ? this.cut(s, ranges) : this.text(s)
    })
  }

  /** Where a secret crosses from one string of `group` into the next (read in order as one text): ranges per string index, into `cuts`. */
  private crossings(group: readonly number[], all: readonly string[], cuts: Map<number, Array<[number, number]>>): void {
    const { raw } = this.compile()
    const strings = group.map((i) => all[i])
    const joined = strings.join('')
    const starts: number[] = []
    let pos = 0
    for (const s of strings) {
      starts.push(pos)
      pos += s.length
    }
    /** the last string whose start is at or before p (an empty string shares its start with the next one) */
    const at = (p: number): number => {
      let lo = 0
      let hi = starts.length - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1
        if (starts[mid] <= p) lo = mid
        else hi = mid - 1
      }
      return lo
    }
    for (const v of raw) {
      for (let i = joined.indexOf(v); i !== -1; i = joined.indexOf(v, i + 1)) {
        const end = i + v.length
        const first = at(i)
        const last = at(end - 1)
        if (first === last) continue // inside one string: text() masks it
        for (let j = first; j <= last; j++) {
          const from = Math.max(i, starts[j]) - starts[j]
          const to = Math.min(end, starts[j] + strings[j].length) - starts[j]
          if (to > from) cuts.set(group[j], [...(cuts.get(group[j]) ?? []), [from, to]])
        }
      }
    }
  }

  /** The string with the given ranges replaced by `***` and the rest masked as text. */
  private cut(s: string, ranges: Array<[number, number]>): string {
    ranges.sort((a, b) => a[0] - b[0])
    let out = ''
    let last = 0
    for (const [from, to] of ranges) {
      if (to <= last) continue
      if (from > last) out += this.text(s.slice(last, from))
      if (!out.endsWith(MASK)) out += MASK
      last = to
    }
    return out + this.text(s.slice(last))
  }
}

/** The strings of a value in order, and their indices by the key they are under (an array's items are under the array's key). */
function collect(v: unknown, out: string[], byKey: Map<string, number[]>, key: string, depth: number): void {
  if (typeof v === 'string') {
    const list = byKey.get(key) ?? []
    list.push(out.length)
    byKey.set(key, list)
    out.push(v)
  } else if (v === null || typeof v !== 'object' || depth >= MAX_DEPTH) return
  else if (Array.isArray(v)) for (const x of v) collect(x, out, byKey, key, depth + 1)
  else for (const [k, x] of Object.entries(v)) collect(x, out, byKey, k, depth + 1)
}

function rebuild(v: unknown, next: () => string, key: (k: string) => string, depth: number, deep: (v: unknown) => unknown): unknown {
  if (typeof v === 'string') return next()
  if (v === null || typeof v !== 'object') return v
  if (depth >= MAX_DEPTH) return deep(v)
  if (Array.isArray(v)) return v.map((x) => rebuild(x, next, key, depth + 1, deep))
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[key(k)] = rebuild(x, next, key, depth + 1, deep)
  return out
}

/** The secrets inside a URL: credentials (as written and decoded), secret query values, token-like path segments. */
function urlSecrets(raw: string, add: (v: string) => void): void {
  try {
    const { text, restore } = referencesAside(raw)
    const url = new URL(text)
    const part = (p: string): void => {
      add(restore(p))
      add(restore(safeDecode(p)))
    }
    part(url.username)
    part(url.password)
    for (const [k, v] of url.searchParams) if (isSecretName(k) || looksLikeToken(v)) add(restore(v))
    for (const seg of url.pathname.split('/')) if (secretPathSegment(seg)) part(seg)
  } catch {
    // not a URL after all
  }
}

const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/\S+/gi

/**
 * The secret values of a server's launch. `known`: the values of its `${secret:…}` (and secret
 * `${env:…}`) references. `everyValue`: every env and header value, not only secret-looking ones
 * (logs and error texts; what agents read keeps ordinary values such as paths readable).
 */
export function launchSecrets(config: ServerConfig, known: readonly string[] = [], everyValue = false): string[] {
  const out = new Set<string>()
  const add = (v: string | undefined | null): void => {
    if (!v) return
    if (findReferences(v).length > 0) {
      // `${secret:NAME}` text names a secret, it is not one (its value comes in `known`);
      // only a token-like literal written beside a reference is
      for (const part of substitute(v, () => '\0').split('\0')) if (looksLikeToken(part.trim(), 8)) add(part.trim())
      return
    }
    out.add(v)
  }
  for (const v of known) add(v)
  for (const [k, v] of Object.entries(config.env ?? {})) {
    if (everyValue || isSecretName(k) || looksLikeToken(v)) add(v)
    for (const u of v.match(URL_IN_TEXT) ?? []) urlSecrets(u, add)
  }
  for (const [k, v] of Object.entries(config.headers ?? {})) {
    const parts = /^(\w+)\s+(.+)$/.exec(v) // "Bearer <token>", "Basic <b64>"
    if (everyValue || isSecretName(k) || looksLikeToken(v) || (parts && looksLikeToken(parts[2], 8))) {
      add(v)
      if (parts) add(parts[2])
    }
  }
  if (config.url) urlSecrets(config.url, add)
  const args = config.args ?? []
  for (const a of args) for (const u of a.match(URL_IN_TEXT) ?? []) urlSecrets(u, add)
  const masked = maskArgs(args)
  args.forEach((a, i) => {
    if (masked[i] === MASK) add(a)
    const eq = /^(?:--?[\w.-]+|[A-Za-z_][\w.-]*)=(.*)$/s.exec(a)
    if (eq && masked[i]?.endsWith(`=${MASK}`)) add(eq[1])
  })
  add(config.oauth?.client_secret)
  return [...out]
}
