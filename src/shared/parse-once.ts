// Files Toolgate reads once (at start, or when they change) are parsed without zod's fast path.
// zod 4 compiles an object schema's first synchronous parse into a parser of its own (`new
// Function`, then V8 compiles and optimizes it) and keeps it on the schema. That pays for a schema
// parsed again and again (an MCP message's); for a file read once it is only work and memory: a
// 50-server config made a parser of ≈ 116 KB that stayed in the heap at rest, and a schema built
// per read (state.json's) compiled its parsers at every read. `jitless` (zod's ParseContext) takes
// the general path, which checks the same (zod runs both against the same schema).
import type { z } from 'zod'

const ONCE = { jitless: true } as const

/** `schema.safeParse(value)` without the compiled fast path, for a value parsed once. */
export function parseOnce<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(value, ONCE)
}
