// The shape of one control operation (its arguments as a zod tuple, its HTTP route, its result)
// and the pure halves of the HTTP mapping every operation shares: a call as a request (the
// client) and a request as a call (the router). The table itself is operations.ts.
import { z } from 'zod'
import { ApiError } from './api'
import { lazy } from './lazy'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** How a result travels, and its type (type only: no value at run time). */
export interface ResultOf<T> {
  /** json: a JSON answer; text: the body as sent (search: byte-identical to retrieve_tools) */
  readonly kind: 'json' | 'text'
  readonly type?: T
}
export const json = <T>(): ResultOf<T> => ({ kind: 'json' })
export const text = (): ResultOf<string> => ({ kind: 'text' })

/** The option keys an object argument takes: fixed, or chosen by another argument (a server action's options depend on the action). */
export type OptionKeys<N extends string> = readonly string[] | { readonly by: N; readonly keys: Readonly<Record<string, readonly string[]>> }

/** Where the arguments are in a request body. */
export interface BodySpec<N extends string> {
  /** body keys that are arguments of their own: {"for": "grantFor"} */
  readonly fields?: Readonly<Record<string, N>>
  /** body keys gathered into one object argument (an action's options); `flags` are boolean query parameters setting the same key (`?network=true`) */
  readonly options?: { readonly arg: N; readonly keys: OptionKeys<N>; readonly flags?: readonly string[] }
  /** the argument that receives the body as sent (a server entry: the core checks it like the config file) */
  readonly whole?: N
  /** keys the operation does not take: ignored, or refused (400) */
  readonly others: 'ignore' | 'refuse'
}

/** A query string that is not simply the argument's fields as strings (search's `q`, `limit`, `include_disabled`). */
export interface QueryCodec<T> {
  /** throws ApiError (400) on a malformed query */
  decode(params: Readonly<Record<string, string>>): T
  encode(value: T): Record<string, string>
}

export interface HttpSpec<N extends string> {
  readonly method: HttpMethod
  /** under /api/v1; `:name` is the argument of that name; the client takes the first path whose arguments are all given */
  readonly paths: readonly [string, ...string[]]
  readonly body?: BodySpec<N>
  /** the argument that is the query string: its fields, empty ones dropped (`?status=` is no filter), or through a codec */
  readonly query?: { readonly arg: N; readonly codec?: QueryCodec<never> }
}

/** One operation: argument names and zod tuple in the same order, its HTTP form, its result. */
export interface OpSpec<N extends string = string, S extends z.ZodTuple = z.ZodTuple, R = unknown> {
  readonly names: readonly N[]
  /** built at its first read (the operation's first call or route match), then kept */
  readonly args: S
  readonly http: HttpSpec<N>
  readonly result: ResultOf<R>
}

/** An operation as the table writes it: its argument schema as a function, so that a table of ~40 operations builds none at load. */
export interface OpDef<N extends string, S extends z.ZodTuple, R> extends Omit<OpSpec<N, S, R>, 'args'> {
  readonly args: () => S
}

export function op<const N extends string, S extends z.ZodTuple, R>(def: OpDef<N, S, R>): OpSpec<N, S, R> {
  const args = lazy(def.args)
  return {
    names: def.names,
    get args() {
      return args()
    },
    http: def.http,
    result: def.result,
  }
}

/** A codec that decodes to unknown (the tuple schema checks the value), for the table's untyped slot. */
export function queryCodec<T>(c: QueryCodec<T>): QueryCodec<never> {
  return c as unknown as QueryCodec<never>
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const has = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)
const TRUE = ['true', '1']
const BOOLEAN = ['true', 'false', '1', '0']

function paramsOf(template: string): string[] {
  return template
    .split('/')
    .filter((p) => p.startsWith(':'))
    .map((p) => p.slice(1))
}

function optionKeys(spec: OpSpec, args: readonly unknown[]): readonly string[] {
  const k = spec.http.body?.options?.keys
  if (!k) return []
  if (Array.isArray(k)) return k
  const by = (k as { by: string; keys: Record<string, readonly string[]> }).by
  const value = args[spec.names.indexOf(by)]
  const keys = (k as { keys: Record<string, readonly string[]> }).keys
  return typeof value === 'string' && has(keys, value) ? keys[value] : []
}

// ---- the client's half: a call as a request ----

export interface HttpRequestOf {
  method: HttpMethod
  /** under /api/v1, segments percent-encoded, with the query string */
  path: string
  /** POST and PUT: the JSON body ({} when nothing is sent) */
  body?: unknown
}

export function requestOf(spec: OpSpec, args: readonly unknown[]): HttpRequestOf {
  const value = (name: string): unknown => args[spec.names.indexOf(name)]
  const given = (name: string): boolean => value(name) !== undefined && value(name) !== null
  const template = spec.http.paths.find((t) => paramsOf(t).every(given)) ?? spec.http.paths[0]
  let path = template.replace(/:([A-Za-z]+)/g, (_m, name: string) => encodeURIComponent(String(value(name))))
  const q = spec.http.query
  if (q) {
    const v = value(q.arg)
    const params = q.codec ? (q.codec as QueryCodec<unknown>).encode(v) : isObject(v) ? v : {}
    const search = new URLSearchParams()
    for (const [k, x] of Object.entries(params)) if (x !== undefined && x !== '') search.set(k, String(x))
    if (search.size) path += `?${search.toString()}`
  }
  if (spec.http.method !== 'POST' && spec.http.method !== 'PUT') return { method: spec.http.method, path }
  const b = spec.http.body
  let body: unknown = {}
  if (b?.whole) body = value(b.whole) ?? {}
  else if (b) {
    const o: Record<string, unknown> = {}
    const opts = b.options ? value(b.options.arg) : undefined
    if (isObject(opts)) Object.assign(o, opts)
    for (const [key, arg] of Object.entries(b.fields ?? {})) if (value(arg) !== undefined) o[key] = value(arg)
    body = o
  }
  return { method: spec.http.method, path, body }
}

// ---- the router's half: a request as a call ----

/** The operation whose route matches, with the path's arguments (segments already percent-decoded). */
export function matchRoute<K extends string>(
  ops: Readonly<Record<K, OpSpec>>,
  method: string,
  parts: readonly string[],
): { name: K; params: Record<string, string> } | null {
  for (const name of Object.keys(ops) as K[]) {
    const spec = ops[name]
    if (spec.http.method !== method) continue
    for (const template of spec.http.paths) {
      const params = matchTemplate(spec, template, parts)
      if (params) return { name, params }
    }
  }
  return null
}

function matchTemplate(spec: OpSpec, template: string, parts: readonly string[]): Record<string, string> | null {
  const segs = template.split('/').filter(Boolean)
  if (segs.length !== parts.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < segs.length; i++) {
    if (!segs[i].startsWith(':')) {
      if (segs[i] !== parts[i]) return null
      continue
    }
    const name = segs[i].slice(1)
    // a parameter matches only values its argument takes (`:action` only the actions): anything else is another route, or none
    const item = tupleItem(spec, name)
    if (item && !z.safeParse(item, parts[i]).success) return null
    params[name] = parts[i]
  }
  return params
}

function tupleItem(spec: OpSpec, name: string): z.core.$ZodType | undefined {
  return spec.args.def.items[spec.names.indexOf(name)]
}

const bad = (message: string): ApiError => new ApiError('invalid_arguments', message, 400)

/** The arguments of a matched request, checked by the operation's schema (400 invalid_arguments on a mistake). */
export function argsOfRequest(spec: OpSpec, params: Readonly<Record<string, string>>, query: Readonly<Record<string, string>>, body: unknown): unknown[] {
  const args: unknown[] = spec.names.map(() => undefined)
  const set = (name: string, v: unknown): void => {
    args[spec.names.indexOf(name)] = v
  }
  for (const [k, v] of Object.entries(params)) set(k, v)
  const q = spec.http.query
  if (q) set(q.arg, q.codec ? (q.codec as QueryCodec<unknown>).decode(query) : Object.fromEntries(Object.entries(query).filter(([, v]) => v !== '')))
  const b = spec.http.body
  if (b && (spec.http.method === 'POST' || spec.http.method === 'PUT')) {
    if (b.whole) set(b.whole, body)
    else readBody(spec, b, args, query, body, set)
  }
  const parsed = spec.args.safeParse(args)
  if (!parsed.success) throw bad(parsed.error.issues[0].message)
  return parsed.data
}

function readBody(
  spec: OpSpec,
  b: BodySpec<string>,
  args: readonly unknown[],
  query: Readonly<Record<string, string>>,
  body: unknown,
  set: (name: string, v: unknown) => void,
): void {
  const fields = Object.keys(b.fields ?? {})
  const keys = optionKeys(spec, args)
  const allowed = [...fields, ...keys]
  // an action that takes nothing ignores what is sent (as it always did), unless the operation refuses extras
  if (allowed.length === 0 && b.others === 'ignore') return
  const example = `{${allowed.map((k) => `"${k}": …`).join(', ')}}`
  if (body !== undefined && body !== null && !isObject(body))
    throw bad(allowed.length ? `the body must be a JSON object like ${example}` : 'the body must be empty or {}')
  const o = isObject(body) ? body : {}
  if (b.others === 'refuse') {
    const unknown = Object.keys(o).filter((k) => !allowed.includes(k))
    if (unknown.length)
      throw bad(
        allowed.length
          ? `the body takes ${example}; unknown key(s): ${unknown.join(', ')}`
          : `the body must be empty or {}; unknown key(s): ${unknown.join(', ')}`,
      )
  }
  for (const [key, arg] of Object.entries(b.fields ?? {})) if (has(o, key)) set(arg, o[key])
  if (!b.options) return
  const picked: Record<string, unknown> = {}
  for (const k of keys) if (has(o, k)) picked[k] = o[k]
  for (const flag of b.options.flags ?? []) {
    const v = query[flag]
    if (v === undefined || !keys.includes(flag)) continue
    if (!BOOLEAN.includes(v)) throw bad(`${flag} must be true or false`)
    if (TRUE.includes(v) && (picked[flag] === undefined || picked[flag] === false)) picked[flag] = true
  }
  set(b.options.arg, Object.keys(picked).length ? picked : undefined)
}

/** The arguments of an IPC call, checked by the operation's schema (400 bad_request on a mistake); arguments past the table's are ignored, as they always were. */
export function argsOfIpc(name: string, spec: OpSpec, args: readonly unknown[]): unknown[] {
  const parsed = spec.args.safeParse(args.slice(0, spec.names.length))
  if (!parsed.success) throw new ApiError('bad_request', `${name}: ${parsed.error.issues[0].message}`, 400)
  return parsed.data
}
