// Build step of the main bundle: the MCP SDK's JSON-RPC guards say "no" without a zod parse when a member their schema requires is missing (docs/performance.md).
//
// @modelcontextprotocol/client and /server 2.4.0 tell a message's kind with guards such as
// `isJSONRPCResultResponse = (value) => JSONRPCResultResponseSchema.safeParse(value).success`, and
// their Protocol asks them in turn of every message it receives: an agent's request is first
// parsed as a result and as an error answer. A failing `safeParse` is the dear kind: zod collects
// an issue per member and builds a ZodError, an Error with its stack (≈ 1.5–3 µs each, two on
// every request). This step puts a test of the members the schema requires before each guard's
// parse: `value.result === undefined` (or `jsonrpc` other than "2.0", or not an object) is a
// "no" the parse would have given too, since zod reads each required member as `input[key]` and
// none of these has a default. A value that passes the test is parsed exactly as before, so a
// guard says yes to what it said yes to, and no to what it said no to
// (test/unit/sdk-fast-guards.test.ts checks both on every guard against its schema).
// It refuses (fails the build, naming what changed):
// - a guard that is not the one statement `const NAME = (value) => SCHEMA.safeParse(value).success;`
//   in each package's `src-*.mjs`;
// - a schema whose definition in the core package is not the text the test was written for
//   (PINNED): a required member could have become optional.
import fs from 'node:fs'
import path from 'node:path'
import type { Plugin } from 'vite'
import { topLevel, wireFile } from './sdk-dedupe.mjs'

/** A guard, its schema, and what a value must have for that schema to pass it (a JavaScript expression over `value`). */
export interface FastGuard {
  guard: string
  schema: string
  needs: string
}

export const FAST_GUARDS: readonly FastGuard[] = [
  { guard: 'isJSONRPCRequest', schema: 'JSONRPCRequestSchema', needs: `value.jsonrpc === "2.0" && value.id !== undefined && value.method !== undefined` },
  { guard: 'isJSONRPCNotification', schema: 'JSONRPCNotificationSchema', needs: `value.jsonrpc === "2.0" && value.method !== undefined` },
  {
    guard: 'isJSONRPCResultResponse',
    schema: 'JSONRPCResultResponseSchema',
    needs: `value.jsonrpc === "2.0" && value.id !== undefined && value.result !== undefined`,
  },
  { guard: 'isJSONRPCErrorResponse', schema: 'JSONRPCErrorResponseSchema', needs: `value.jsonrpc === "2.0" && value.error !== undefined` },
  {
    guard: 'isJSONRPCResponse',
    schema: 'JSONRPCResponseSchema',
    needs: `value.jsonrpc === "2.0" && (value.result !== undefined || value.error !== undefined)`,
  },
  { guard: 'isInitializeRequest', schema: 'InitializeRequestSchema', needs: `value.method === "initialize"` },
  { guard: 'isInitializedNotification', schema: 'InitializedNotificationSchema', needs: `value.method === "notifications/initialized"` },
]

/**
 * The definitions (in @modelcontextprotocol/core's dist, as published) the tests above were
 * derived from, compared without whitespace: the schemas of the guards and the ones whose members they
 * spread or extend. The guards' `needs` hold only while each of these reads as here.
 */
export const PINNED: Record<string, string> = {
  JSONRPC_VERSION: `const JSONRPC_VERSION = "2.0";`,
  RequestSchema: `const RequestSchema = z.object({ method: z.string(), params: BaseRequestParamsSchema.loose().optional() });`,
  NotificationSchema: `const NotificationSchema = z.object({ method: z.string(), params: NotificationsParamsSchema.loose().optional() });`,
  RequestIdSchema: `const RequestIdSchema = z.union([z.string(), z.number().int()]);`,
  JSONRPCRequestSchema: `const JSONRPCRequestSchema = z.object({ jsonrpc: z.literal(JSONRPC_VERSION), id: RequestIdSchema, ...RequestSchema.shape }).strict();`,
  JSONRPCNotificationSchema: `const JSONRPCNotificationSchema = z.object({ jsonrpc: z.literal(JSONRPC_VERSION), ...NotificationSchema.shape }).strict();`,
  JSONRPCResultResponseSchema: `const JSONRPCResultResponseSchema = z.object({ jsonrpc: z.literal(JSONRPC_VERSION), id: RequestIdSchema, result: ResultSchema }).strict();`,
  JSONRPCErrorResponseSchema: `const JSONRPCErrorResponseSchema = z.object({ jsonrpc: z.literal(JSONRPC_VERSION), id: RequestIdSchema.optional(), error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) }).strict();`,
  JSONRPCResponseSchema: `const JSONRPCResponseSchema = z.union([JSONRPCResultResponseSchema, JSONRPCErrorResponseSchema]);`,
  InitializeRequestSchema: `const InitializeRequestSchema = RequestSchema.extend({ method: z.literal("initialize"), params: InitializeRequestParamsSchema });`,
  InitializedNotificationSchema: `const InitializedNotificationSchema = NotificationSchema.extend({ method: z.literal("notifications/initialized"), params: NotificationsParamsSchema.optional() });`,
}

/** A definition without its comments and whitespace, to compare: the pins are written readably. */
const collapse = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\s+/g, '')

/** Throws unless every PINNED definition is in `text` (a core dist file) as pinned. */
export function assertPinned(file: string, text: string): void {
  const { decls } = topLevel(file, text)
  for (const [name, pinned] of Object.entries(PINNED)) {
    const found = decls.get(name)
    if (!found) throw new Error(`sdk-fast-guards: ${file} no longer defines ${name}; read the SDK's new guards before keeping scripts/sdk-fast-guards.mts`)
    if (collapse(found.text) !== collapse(pinned))
      throw new Error(
        `sdk-fast-guards: ${name} changed in ${file} (now: ${collapse(found.text)}); check what its guard's test in scripts/sdk-fast-guards.mts assumes, then pin it anew`,
      )
  }
}

/** The guard's statement as published, and as this step writes it. */
export function guardStatements(g: FastGuard): { published: string; fast: string } {
  return {
    published: `const ${g.guard} = (value) => ${g.schema}.safeParse(value).success;`,
    fast: `const ${g.guard} = (value) => typeof value === "object" && value !== null && ${g.needs} && ${g.schema}.safeParse(value).success;`,
  }
}

/** `code` (a package's `src-*.mjs`) with each guard given its test; throws unless each guard is there once, as published. */
export function fastGuards(code: string, file: string): string {
  let out = code
  for (const g of FAST_GUARDS) {
    const { published, fast } = guardStatements(g)
    const count = out.split(published).length - 1
    if (count !== 1)
      throw new Error(
        `sdk-fast-guards: ${file} holds ${count} copies of \`${published}\` (expected one); read the SDK's new guards before keeping scripts/sdk-fast-guards.mts`,
      )
    out = out.replace(published, fast)
  }
  return out
}

/** The core package's dist file that defines the JSON-RPC schemas. */
export function schemaFile(coreDist: string): string {
  const files = fs
    .readdirSync(coreDist)
    .filter((f) => f.endsWith('.mjs'))
    .filter((f) => /\bconst JSONRPCRequestSchema = /.test(fs.readFileSync(path.join(coreDist, f), 'utf8')))
  if (files.length !== 1) throw new Error(`sdk-fast-guards: expected one file defining JSONRPCRequestSchema in ${coreDist}, found ${files.length}`)
  return path.join(coreDist, files[0] as string)
}

/** The vite plugin (main build). `nodeModules`: the folder holding the @modelcontextprotocol packages. Runs after sdkDedupe and sdkLazySchemas (their edits are elsewhere in these files). */
export function sdkFastGuards(nodeModules: string): Plugin {
  const dist = (pkg: string) => fs.realpathSync(path.join(nodeModules, '@modelcontextprotocol', pkg, 'dist'))
  const schemas = schemaFile(dist('core'))
  assertPinned(schemas, fs.readFileSync(schemas, 'utf8'))
  const files = new Set([wireFile(dist('client')), wireFile(dist('server'))])
  // checked once at the start of the build, on the files as published
  for (const f of files) fastGuards(fs.readFileSync(f, 'utf8'), f)
  return {
    name: 'toolgate-sdk-fast-guards',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0] as string
      return files.has(file) ? { code: fastGuards(code, file), map: null } : null
    },
  }
}
