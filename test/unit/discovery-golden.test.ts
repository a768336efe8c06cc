// docs/contract.md §3 rule 1: without include_disabled the response is byte-for-byte what a build
// without the feature returns. Golden files pin the exact bytes; absent and false are identical.
//
// Round three's `locked_ahead` (docs/search.md) is the one key added since: always the last key, so
// the response without it is byte for byte the golden file of the build before it; its own bytes
// are pinned in the `.locked-ahead.json` files.
//
// The golden files are regenerated only deliberately:
//   TOOLGATE_UPDATE_GOLDEN=1 npx vitest run test/unit/discovery-golden.test.ts
// and the diff is reviewed before it is committed. The callable entries carry BM25 scores, so a
// search-tuning change shows up here too (the failure message says when only scores moved).
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { retrieveText, type RetrieveArgs } from '../../src/main/core/discovery/retrieve'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { buildWorld, type Fixture } from '../helpers/catalog-fixture'

const GOLDEN_DIR = path.resolve(__dirname, '../fixtures/golden')
const UPDATE = process.env.TOOLGATE_UPDATE_GOLDEN === '1'

function golden(name: string, text: string): void {
  const file = path.join(GOLDEN_DIR, name)
  if (UPDATE) {
    fs.mkdirSync(GOLDEN_DIR, { recursive: true })
    fs.writeFileSync(file, text)
  }
  expect(fs.existsSync(file), `${file} is missing; regenerate deliberately with TOOLGATE_UPDATE_GOLDEN=1`).toBe(true)
  const want = fs.readFileSync(file)
  if (!Buffer.from(text, 'utf8').equals(want)) {
    // Say whether only BM25 scores moved (a search-tuning change: review, then regenerate) or the
    // shape/order/content changed (rule 1 broken unless deliberate).
    const noScores = (t: string) => t.replace(/"score":-?[0-9.e+-]+/g, '"score":0')
    const why = noScores(text) === noScores(want.toString('utf8')) ? 'only scores differ (search tuning?)' : 'shape, order or content differs'
    expect(text, `${name}: ${why}; regenerate deliberately with TOOLGATE_UPDATE_GOLDEN=1 after review`).toBe(want.toString('utf8'))
  }
}

/**
 * The response as the build before `locked_ahead` wrote it, and the added entries (null when none).
 * Fails when locked_ahead is not the last key (the bytes before it would then have moved).
 */
function splitLockedAhead(text: string): { before: string; lockedAhead: string } {
  const r = JSON.parse(text) as Record<string, unknown>
  const keys = Object.keys(r)
  if (!('locked_ahead' in r)) return { before: text, lockedAhead: 'null' }
  expect(keys.at(-1), 'locked_ahead is the last key').toBe('locked_ahead')
  const lockedAhead = JSON.stringify(r.locked_ahead)
  const suffix = `,"locked_ahead":${lockedAhead}}`
  expect(text.endsWith(suffix), 'locked_ahead is appended as is').toBe(true)
  return { before: `${text.slice(0, text.length - suffix.length)}}`, lockedAhead }
}

function goldenWithLockedAhead(file: string, text: string): void {
  const { before, lockedAhead } = splitLockedAhead(text)
  golden(file, before)
  golden(file.replace(/\.json$/, '.locked-ahead.json'), lockedAhead)
}

let world: Fixture
beforeAll(async () => {
  world = await buildWorld()
})

const DEFAULT_CASES: Array<[string, RetrieveArgs]> = [
  ['retrieve-default-list-repositories.json', { query: 'list repositories' }],
  ['retrieve-default-repository-limit-2.json', { query: 'repository', limit: 2 }],
  ['retrieve-default-read-a-file-notice.json', { query: 'read a file' }],
  ['retrieve-default-no-match.json', { query: 'weather forecast' }],
  // the one deliberate addition (docs/search.md): a locked tool named exactly gets a notice
  // (a query with no callable match, so its bytes carry no BM25 score that search tuning moves)
  ['retrieve-default-exact-name-export-secrets.json', { query: 'sketchy:export_secrets' }],
]

describe('As an agent that never heard of include_disabled, my responses do not change', () => {
  it.each(DEFAULT_CASES)('%s: the default response matches the golden bytes (locked_ahead pinned on its own)', (file, args) => {
    goldenWithLockedAhead(file, retrieveText(world.catalog, args, FULL_SCOPE))
  })

  it.each(DEFAULT_CASES)('%s: include_disabled absent and false give identical bytes', (_file, args) => {
    const absent = retrieveText(world.catalog, args, FULL_SCOPE)
    const off = retrieveText(world.catalog, { ...args, include_disabled: false }, FULL_SCOPE)
    expect(Buffer.from(off).equals(Buffer.from(absent))).toBe(true)
  })

  it('the default response never has disabled or remediation keys, even when locked tools match', () => {
    for (const query of ['list repositories', 'delete repository', 'read a file', 'rotate keys', 'support tickets', 'export secrets', 'archive']) {
      const { before } = splitLockedAhead(retrieveText(world.catalog, { query }, FULL_SCOPE))
      const r = JSON.parse(before)
      expect(Object.keys(r)).not.toContain('disabled')
      expect(Object.keys(r)).not.toContain('remediation')
      expect(before).not.toMatch(/"status"|disabled_by_|server_quarantined|pending_approval|server_disabled/)
    }
  })

  it('the callable part is the same with and without include_disabled (ranking untouched)', () => {
    for (const query of ['list repositories', 'repository', 'delete a repository', 'search code', 'read a file']) {
      const off = JSON.parse(retrieveText(world.catalog, { query }, FULL_SCOPE))
      const on = JSON.parse(retrieveText(world.catalog, { query, include_disabled: true }, FULL_SCOPE))
      expect(on.query).toEqual(off.query)
      expect(on.tools).toEqual(off.tools)
      expect(on.total).toEqual(off.total)
    }
  })
})

describe('As an agent that opts in, the locked part has a stable format', () => {
  it.each([
    ['retrieve-include-disabled-rotate-keys.json', { query: 'rotate keys', include_disabled: true }],
    ['retrieve-include-disabled-read-a-file.json', { query: 'read a file', include_disabled: true }],
  ] as Array<[string, RetrieveArgs]>)('%s matches the golden bytes (locked_ahead pinned on its own)', (file, args) => {
    goldenWithLockedAhead(file, retrieveText(world.catalog, args, FULL_SCOPE))
  })
})
