// Files read once are parsed without zod's compiled fast path (src/shared/parse-once.ts;
// docs/performance.md, session 11): reading the config, state.json, the last catalog and the
// instance file compiles no parser (no `new Function`), and what they accept and refuse, with
// which message, is what the schemas' compiled path gives.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { cleanupTemp, tempDir } from '../helpers/cli'
import { loadConfigFile, ConfigError } from '../../src/main/core/config/load'
import { ObjectConfigSchema } from '../../src/shared/config-schema'
import { StateStore } from '../../src/main/core/state/store'
import { stateSchema } from '../../src/main/core/state/schema'
import { parseOnce } from '../../src/shared/parse-once'

afterAll(cleanupTemp)

const RealFunction = globalThis.Function
let made = 0
/** Counts every function compiled from text while `fn` runs (zod's fast path is made with `new Function`). */
function compiledDuring<T>(fn: () => T): { value: T; made: number } {
  made = 0
  globalThis.Function = new Proxy(RealFunction, {
    construct(target, args: string[]) {
      made++
      return Reflect.construct(target, args) as object
    },
    apply(target, self, args: string[]) {
      made++
      return Reflect.apply(target, self, args) as unknown
    },
  })
  try {
    return { value: fn(), made }
  } finally {
    globalThis.Function = RealFunction
  }
}
afterEach(() => {
  globalThis.Function = RealFunction
})

function configText(n: number): string {
  const mcpServers: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) mcpServers[`s${i}`] = { command: 'node', args: [`server-${i}.js`], env: { A: `${i}` }, sandbox: { fs_read: ['~/notes'] } }
  return JSON.stringify({ mcpServers }, null, 2)
}

describe('files read once', () => {
  it('the counter sees a schema’s compiled fast path (the check below can fail)', () => {
    // a fresh schema (its fast path is made at its first synchronous parse), parsed the ordinary way
    const schema = stateSchema()
    expect(compiledDuring(() => schema.safeParse({ version: 2, servers: { a: { user_quarantined: true } } })).made).toBeGreaterThan(0)
  })

  it('the config is read and checked without a compiled parser, with the same result and errors', () => {
    const dir = tempDir('toolgate-parse-once-')
    const file = path.join(dir, 'mcp_config.json')
    fs.writeFileSync(file, configText(20))
    const { value, made: n } = compiledDuring(() => loadConfigFile(file, { create: false }))
    expect(n).toBe(0)
    expect(value.config.servers.map((s) => s.name)).toEqual(Array.from({ length: 20 }, (_, i) => `s${i}`))
    // the compiled path accepts and refuses alike
    const raw = JSON.parse(configText(3)) as Record<string, unknown>
    expect(parseOnce(ObjectConfigSchema, raw)).toEqual(ObjectConfigSchema.safeParse(raw))
    const bad = { mcpServers: { a: { command: 'node', env: { A: 1 } }, b: { url: 'not a url' } } }
    const once = parseOnce(ObjectConfigSchema, bad)
    const compiled = ObjectConfigSchema.safeParse(bad)
    expect(once.success).toBe(false)
    expect(once.error?.issues).toEqual(compiled.error?.issues)
    fs.writeFileSync(file, JSON.stringify(bad))
    expect(() => loadConfigFile(file, { create: false })).toThrow(ConfigError)
  })

  it('state.json is read without a compiled parser, and a file its schema refuses still fails closed', async () => {
    const dir = tempDir('toolgate-parse-once-state-')
    const file = path.join(dir, 'state.json')
    const store = new StateStore(file)
    await store.update((s) => {
      s.servers.gh = { user_quarantined: true }
    })
    const { value, made: n } = compiledDuring(() => new StateStore(file).current)
    expect(n).toBe(0)
    expect(value.servers.gh?.user_quarantined).toBe(true)
    fs.writeFileSync(file, JSON.stringify({ version: 2, servers: { gh: { user_quarantined: 'yes' } } }))
    const refused = compiledDuring(() => new StateStore(file).current)
    expect(refused.made).toBe(0)
    expect(refused.value.fail_closed).toBeDefined()
  })
})
