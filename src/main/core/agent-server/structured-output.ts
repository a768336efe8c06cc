// Structured output (docs/passthrough.md): a tool whose approved definition has an outputSchema must
// answer structuredContent that matches it (the MCP spec: servers MUST; clients SHOULD validate).
// Toolgate validates before the agent sees the result: a result without structuredContent, or
// with structuredContent the schema refuses, becomes an error result naming the mismatch, and
// none of the unchecked content passes. An error result (isError) is passed as it is. A schema
// that cannot be compiled cannot vouch for anything: its results are refused too (fail closed).
import type { CallToolResult } from '@modelcontextprotocol/server'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv'

type Check = (value: unknown) => { valid: true } | { valid: false; errorMessage?: string }

/**
 * One validator per server. The SDK's validator looks a schema up by its `$id` before it compiles
 * it, and keeps every `$id` it compiled: shared by all servers, a hostile server's outputSchema
 * that took the `$id` of another server's (a public server's schemas are known) was what that
 * server's results were checked against, once it was compiled first (a schema nothing matches
 * refused all of them; one anything matches let through what the approved schema refuses).
 * A server's validator is built on its first checked result (≈ 60 KB, ≈ 2 ms).
 */
const validators = new Map<string, AjvJsonSchemaValidator>()
/** compiled per schema object (an approved definition's schema is never changed after it is listed) */
const compiled = new WeakMap<object, Check | { error: string }>()
/**
 * and per server and schema text: every listing (a list_changed, a reconnect) makes new objects
 * of the same schemas, and a validator keeps each schema object it compiled for good (ajv's cache):
 * compiled once per text, a server that relists in a loop costs nothing more. Only approved
 * schemas are checked, so a server holds few texts; the oldest go past MAX_TEXTS.
 */
const byText = new Map<string, Map<string, Check | { error: string }>>()
const MAX_TEXTS = 256

/** Whether a `$id` appears anywhere in the schema (a key of any object in it). */
function hasId(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null || depth > 200) return false
  if (Array.isArray(value)) return value.some((v) => hasId(v, depth + 1))
  return Object.hasOwn(value, '$id') || Object.values(value).some((v) => hasId(v, depth + 1))
}

/**
 * The validator a schema is compiled in: the server's own, or, for a schema that names a `$id`
 * anywhere, one of its own. A validator keeps what it compiled by `$id` (the root's is looked
 * up before compiling, a nested one is registered): an outputSchema changed under the same `$id`
 * (and approved) was checked with the old one for as long as the server's validator lived, and
 * one tool's `$id` decided another's. Its own costs ≈ 60 KB and ≈ 2 ms, once per schema; it goes
 * with the schema (the WeakMap below).
 */
function validatorFor(server: string, schema: Record<string, unknown>): AjvJsonSchemaValidator {
  if (hasId(schema)) return new AjvJsonSchemaValidator()
  let validator = validators.get(server)
  if (!validator) validators.set(server, (validator = new AjvJsonSchemaValidator()))
  return validator
}

function checkerFor(server: string, schema: Record<string, unknown>): Check | { error: string } {
  let c = compiled.get(schema)
  if (c) return c
  let texts = byText.get(server)
  if (!texts) byText.set(server, (texts = new Map()))
  const text = JSON.stringify(schema)
  c = texts.get(text)
  if (!c) {
    try {
      c = validatorFor(server, schema).getValidator(schema as never) as Check
    } catch (e) {
      c = { error: (e as Error).message }
    }
    texts.set(text, c)
    if (texts.size > MAX_TEXTS) texts.delete(texts.keys().next().value as string)
  }
  compiled.set(schema, c)
  return c
}

const refused = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] })

/** The result as the agent may get it, checked against `outputSchema` (the tool's approved one; `server`'s, `id` its "server:tool"). */
export function checkStructuredOutput(server: string, id: string, outputSchema: Record<string, unknown> | undefined, result: CallToolResult): CallToolResult {
  if (!outputSchema || result.isError) return result
  const check = checkerFor(server, outputSchema)
  if ('error' in check)
    return refused(
      `STRUCTURED_OUTPUT_MISMATCH: the approved outputSchema of ${id} is not a JSON Schema Toolgate can check (${check.error}), so its results are not passed on; ask the user to report it to the server's author.`,
    )
  if (result.structuredContent === undefined)
    return refused(
      `STRUCTURED_OUTPUT_MISMATCH: ${id} answered without structuredContent, though its approved outputSchema requires it; the result was not passed on.`,
    )
  const r = check(result.structuredContent)
  if (r.valid) return result
  return refused(
    `STRUCTURED_OUTPUT_MISMATCH: ${id} answered structuredContent that does not match its approved outputSchema (${(r.errorMessage ?? 'invalid').slice(0, 500)}); the result was not passed on.`,
  )
}
