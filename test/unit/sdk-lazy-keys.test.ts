// The SDK's elicitation key tables are computed at their first read, not at load (scripts/sdk-lazy-keys.mts): the
// step defers exactly the tables read from schemas, keeps their expressions, calls them wherever they
// are read, refuses what it is not sound for; the rewritten module answers the same tables as the
// published one; and the built bundle builds no SDK schema when it loads.
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { LAZY_SCHEMA_SOURCE, lazyWireBuilders } from '../../scripts/sdk-lazy-schemas.mjs'
import { LAZY_KEY_REGIONS, lazyKeys } from '../../scripts/sdk-lazy-keys.mjs'
import { wireFile } from '../../scripts/sdk-dedupe.mjs'
import { assertBuilt, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

afterAll(cleanupTemp)

const dist = (pkg: string) => fs.realpathSync(path.join(ROOT, 'node_modules/@modelcontextprotocol', pkg, 'dist'))
const WIRES = [wireFile(dist('client')), wireFile(dist('server'))] as const
/** The tables of the SDK 2.4.0's elicitation code read from schemas (a new SDK that changes them changes this list, on purpose). */
const TABLES = ['PROPERTY_KEYS_BY_TYPE', 'ROOT_KEYS', 'SUPPORTED_STRING_FORMATS']
/** As sdk-lazy-schemas.mts leaves a wire file: the step's input in the build. */
const afterSchemas = (file: string): string => {
  const text = fs.readFileSync(file, 'utf8')
  return lazyWireBuilders(text, text, file).code
}
const published = (file: string, name: string): string => {
  const m = new RegExp(`\\nconst ${name} = ([\\s\\S]*?);\\n(?=const |function |/\\*\\*)`).exec(fs.readFileSync(file, 'utf8'))
  if (!m?.[1]) throw new Error(`no const ${name} in ${file}`)
  return m[1]
}

describe.each(WIRES.map((f) => [path.basename(path.dirname(path.dirname(f))), f]))('the %s package’s wire file', (_pkg, file) => {
  it('defers exactly the tables read from schemas, with their expressions unchanged, and calls them wherever they are read', () => {
    const { code, deferred } = lazyKeys(afterSchemas(file), file)
    expect([...deferred].sort()).toEqual(TABLES)
    for (const name of TABLES) {
      expect(code).toContain(`const ${name} = __tgD(() => (${published(file, name)}));`)
      // no read of the table is left that is not a call (its declaration aside)
      const bare = [...code.matchAll(new RegExp(`\\b${name}\\b(?!\\(\\))`, 'g'))].map((m) => code.slice(m.index - 6, m.index + name.length))
      expect(bare).toEqual([`const ${name}`])
      expect(code.match(new RegExp(`\\b${name}\\(\\)`, 'g'))?.length).toBeGreaterThan(0)
    }
  })

  it('refuses a file it is not sound for', () => {
    const code = afterSchemas(file)
    const region = `//#region ${LAZY_KEY_REGIONS[0]}\n`
    const at = code.indexOf(region) + region.length
    const insert = (text: string) => `${code.slice(0, at)}${text}\n${code.slice(at)}`
    expect(() => lazyKeys(fs.readFileSync(file, 'utf8'), file)).toThrow(/does not import derived/)
    expect(() => lazyKeys(insert('function shadow(ROOT_KEYS) { return ROOT_KEYS }'), file)).toThrow(/`ROOT_KEYS` is bound again/)
    expect(() => lazyKeys(insert('function write() { ROOT_KEYS = null }'), file)).toThrow(/writes `ROOT_KEYS`/)
    expect(() => lazyKeys(code.replace(/export \{/, 'export { ROOT_KEYS as __rootKeys,'), file)).toThrow(/exports `ROOT_KEYS`/)
    expect(() => lazyKeys(code.replace(region, '//#region elsewhere\n'), file)).toThrow(/exactly one region/)
    const literal = code
      .replace(/const ROOT_KEYS = [^;]*;/, 'const ROOT_KEYS = new Set(["$schema"]);')
      .replace(/const PROPERTY_KEYS_BY_TYPE = \{[\s\S]*?\n\};/, 'const PROPERTY_KEYS_BY_TYPE = {};')
      .replace(/const SUPPORTED_STRING_FORMATS = [^;]*;/, 'const SUPPORTED_STRING_FORMATS = new Set();')
    expect(() => lazyKeys(literal, file)).toThrow(/hold no table read from a schema/)
  })

  it('the rewritten module answers the same tables as the published one', async () => {
    const dir = tempDir('toolgate-sdk-lazy-keys-')
    const core = pathToFileURL(path.join(dist('core'), 'internal.mjs')).href
    const zod = pathToFileURL(createRequire(path.join(ROOT, 'package.json')).resolve('zod/v4')).href
    fs.writeFileSync(path.join(dir, 'lazy-schema.mjs'), LAZY_SCHEMA_SOURCE)
    const load = async (code: string, read: string, n: string) => {
      const text = code
        .replace(/from "\.\//g, `from "${pathToFileURL(path.dirname(file)).href}/`)
        .replace(/from "@modelcontextprotocol\/core\/internal"/g, `from ${JSON.stringify(core)}`)
        .replace(/from "zod\/v4"/g, `from ${JSON.stringify(zod)}`)
        .replace('"\\u0000toolgate:lazy-schema"', '"./lazy-schema.mjs"')
        .replace(/\n\/\/# sourceMappingURL=.*$/, '')
      const out = path.join(dir, `${n}.mjs`)
      fs.writeFileSync(out, `${text}\nexport const __tables = () => ({ ${TABLES.map((t) => `${t}: ${read.replace(/NAME/g, t)}`).join(', ')} });\n`)
      return ((await import(pathToFileURL(out).href)) as { __tables: () => Record<string, unknown> }).__tables()
    }
    const before = await load(fs.readFileSync(file, 'utf8'), 'NAME', 'published')
    const after = await load(lazyKeys(afterSchemas(file), file).code, 'NAME()', 'rewritten')
    expect(after).toEqual(before)
    expect((before.ROOT_KEYS as Set<string>).has('properties')).toBe(true)
    expect(Object.keys(before.PROPERTY_KEYS_BY_TYPE as object)).toContain('string')
  })
})

describe('the built bundle', () => {
  it('builds no SDK schema when it loads', () => {
    assertBuilt()
    const chunks = path.join(ROOT, 'out/main/chunks')
    const core = fs.readdirSync(chunks).find((f) => /^core-.*\.js$/.test(f))
    expect(core).toBeDefined()
    const chunk = path.join(chunks, core as string)
    const text = fs.readFileSync(chunk, 'utf8')
    // the stand-in's build, counted: a copy of the chunk run in a child with the count printed after it loads
    const build = /const built\s*=\s*build\(\)/
    expect(text).toMatch(build)
    const script = `
      const fs = require('node:fs'), vm = require('node:vm'), { createRequire } = require('node:module')
      const chunk = ${JSON.stringify(chunk)}
      globalThis.__built = 0
      const text = fs.readFileSync(chunk, 'utf8').replace(${build}, 'const built = (globalThis.__built++, build())')
      const fn = vm.runInThisContext(require('node:module').wrap(text), { filename: chunk })
      const module = { exports: {} }
      fn(module.exports, createRequire(chunk), module, chunk, require('node:path').dirname(chunk))
      process.stdout.write(String(globalThis.__built))`
    expect(Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 }))).toBe(0)
  })
})
