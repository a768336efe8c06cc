// The main build keeps one copy of what the MCP SDK's client and server packages ship alike (scripts/sdk-dedupe.mts):
// the check that allows it must hold on the installed SDK and must refuse copies that differ
// (a changed SDK), down to a helper or an import the wire schemas use; the built bundle holds one copy.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { assertSameWireBuilders, sameModules, shareWireMemos, wireFile } from '../../scripts/sdk-dedupe.mjs'
import { assertBuilt, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

const SDK = path.join(ROOT, 'node_modules/@modelcontextprotocol')
const CLIENT = path.join(SDK, 'client/dist')
const SERVER = path.join(SDK, 'server/dist')

afterAll(cleanupTemp)

/** A copy of both packages' dist .mjs files in a temp dir, to change one of them. */
function copies(): { client: string; server: string } {
  const root = tempDir('toolgate-sdk-dedupe-')
  const out = { client: path.join(root, 'client'), server: path.join(root, 'server') }
  for (const [from, to] of [
    [CLIENT, out.client],
    [SERVER, out.server],
  ] as const) {
    fs.mkdirSync(to)
    for (const f of fs.readdirSync(from)) if (f.endsWith('.mjs')) fs.copyFileSync(path.join(from, f), path.join(to, f))
  }
  return out
}

const fileStarting = (dir: string, prefix: string) => {
  const f = fs.readdirSync(dir).find((x) => x.startsWith(prefix) && x.endsWith('.mjs'))
  if (!f) throw new Error(`no ${prefix}*.mjs in ${dir}`)
  return f
}

/** Replaces the one occurrence of `from` in `file`, or the first one after `after` (fails the test if there is none, or more than one without `after`). */
function edit(file: string, from: string, to: string, after?: string): void {
  const text = fs.readFileSync(file, 'utf8')
  const at = after === undefined ? 0 : text.indexOf(after)
  expect(at).toBeGreaterThanOrEqual(0)
  if (after === undefined) expect(text.split(from).length - 1).toBe(1)
  expect(text.indexOf(from, at)).toBeGreaterThanOrEqual(0)
  fs.writeFileSync(file, text.slice(0, at) + text.slice(at).replace(from, to))
}

describe('files of the server package that are the client package’s', () => {
  it('are the ajv provider, the runtime helpers and the dialect table, and not the packages’ own code', () => {
    const same = sameModules(SERVER, CLIENT)
    const prefixes = [...same.keys()].map((f) => f.replace(/-[\w]{8}\.mjs$/, '')).sort()
    expect(prefixes).toEqual(['ajvProvider', 'cfWorkerProvider', 'chunk', 'dialects'])
    for (const [s, c] of same) expect(s.replace(/-[\w]{8}\.mjs$/, '')).toBe(c.replace(/-[\w]{8}\.mjs$/, ''))
  })

  it('keeps two copies when one byte differs, and of every file that imports the differing one', () => {
    const d = copies()
    const dialects = fileStarting(d.server, 'dialects-')
    edit(path.join(d.server, dialects), '"https://json-schema.org/draft-07/schema"', '"https://json-schema.org/draft-08/schema"')
    const same = [...sameModules(d.server, d.client).keys()].map((f) => f.replace(/-[\w]{8}\.mjs$/, ''))
    expect(same).toContain('chunk')
    expect(same).not.toContain('dialects')
    expect(same).not.toContain('ajvProvider') // it imports the dialect table
  })
})

describe('the wire-schema builders of both packages', () => {
  it('are the same code on the installed SDK, helpers and imports included', () => {
    const compared = assertSameWireBuilders(wireFile(CLIENT), wireFile(SERVER), sameModules(SERVER, CLIENT))
    // the check followed the builders out of their region: a helper, a constant, an import
    expect(compared.get('2025-11-25')).toEqual(expect.arrayContaining(['normalizeContentlessToolResult', 'TOOL_RESULT_FOREIGN_FAMILY_KEYS', 'z']))
    expect(compared.get('2026-07-28')).toEqual(expect.arrayContaining(['PROTOCOL_VERSION_META_KEY', 'z']))
  })

  const refused = (change: (serverWire: string) => void): (() => void) => {
    const d = copies()
    const serverWire = wireFile(d.server)
    change(serverWire)
    return () => assertSameWireBuilders(wireFile(d.client), serverWire, sameModules(d.server, d.client))
  }

  it('are refused when a builder differs', () => {
    const check = refused((f) =>
      edit(
        f,
        'z.union([z.string(), z.number().int()])',
        'z.union([z.string(), z.number()])',
        '//#region ../core-internal/src/wire/rev2025-11-25/buildSchemas.ts',
      ),
    )
    expect(check).toThrow(/2025-11-25 wire schemas .* differ between the client and server packages/)
  })

  it('are refused when a helper they use differs', () => {
    const check = refused((f) => edit(f, '(value) {', '(value) {\n\tvalue = { ...value };', 'function normalizeContentlessToolResult('))
    expect(check).toThrow(/`normalizeContentlessToolResult`, which differs/)
  })

  it('are refused when an import they use comes from elsewhere', () => {
    const check = refused((f) => edit(f, 'import * as z from "zod/v4";', 'import * as z from "zod/v3";'))
    expect(check).toThrow(/`z`, which differs/)
  })

  it('are refused when the memo is no longer `return memo ??= build();`', () => {
    const check = refused((f) => edit(f, 'return memo ??= build();', 'return memo ||= build();'))
    expect(check).toThrow(/buildSchemas2026\(\) is no longer/)
  })

  it('each ask the one shared memo after the transform', () => {
    const file = wireFile(SERVER)
    const out = shareWireMemos(fs.readFileSync(file, 'utf8'), file)
    const calls = out.match(/return (\w|\$)+ \?\?= __toolgateSharedWireSchemas\("(2025-11-25|2026-07-28)", (\w|\$)+\);/g) ?? []
    expect(calls).toHaveLength(2)
    expect(out).not.toMatch(/return (\w|\$)+ \?\?= build(\$\d)?\(\);/)
  })
})

describe('the built main bundle', () => {
  it('holds one ajv provider and builds each era’s wire schemas through the shared memo', () => {
    assertBuilt()
    const dir = path.join(ROOT, 'out/main/chunks')
    const bundle = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
      .join('\n')
    // (printed without whitespace or module comments: scripts/statement-lines.mts) the ajv provider's
    // own function once, not a second copy renamed `$1`; each package's memo asks the shared one
    expect(bundle.match(/function createDefaultAjvInstance(\$\d+)?\(/g)).toHaveLength(1)
    expect(bundle.match(/\?\?=\s*sharedWireSchemas\((["'`])2025-11-25\1,/g)).toHaveLength(2)
    expect(bundle.match(/\?\?=\s*sharedWireSchemas\((["'`])2026-07-28\1,/g)).toHaveLength(2)
  })
})
