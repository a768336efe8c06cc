// At the store: a state.json that parses but lost decisions its last good copy holds
// (or holds none while catalog.json shows servers that ran) is not taken as it is. Real
// StateStores on temp dirs; each variant is written the way an attacker would write it. And the
// other side: what Toolgate itself leaves (the same text in both files, or state.json one write
// ahead with more decisions, inspect-only catalogs) loads as it is.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { StateStore, lastGoodPath } from '../../src/main/core/state/store'
import type { State } from '../../src/main/core/state/schema'
import { tmpDir } from '../helpers/catalog-fixture'

const APPROVED = { hash: 'h1', description: 'List repositories', inputSchema: { type: 'object' } }

/** A data dir where the user approved gh (baseline, one tool), disabled another tool and runs a timed grant; returns its state file. */
async function decided(): Promise<string> {
  const file = path.join(tmpDir(), 'state.json')
  const store = new StateStore(file)
  await store.update((s) => {
    s.servers.gh = { approved_identity: 'node gh.js', baseline_taken: true }
    s.tools['gh:list_repos'] = { approved: APPROVED }
    s.tools['gh:delete_repo'] = { approved: { ...APPROVED, hash: 'h2' }, user_disabled: true }
    s.grants = [
      {
        id: 'g_1',
        kind: 'timed',
        server: 'gh',
        tool: 'archive_repo',
        until: new Date(Date.now() + 3_600_000).toISOString(),
        created_at: new Date().toISOString(),
        undo: [{ type: 'tool_enabled', tool: 'archive_repo' }],
      },
    ]
  })
  return file
}

const read = (file: string): State => JSON.parse(fs.readFileSync(file, 'utf8')) as State
const write = (file: string, value: unknown): void => fs.writeFileSync(file, JSON.stringify(value))
const edit = (file: string, change: (s: State) => void): void => {
  const s = read(file)
  change(s)
  write(file, s)
}

describe('a state.json that parses but lost decisions fails closed', () => {
  const variants: Array<[string, (file: string) => void, RegExp]> = [
    ['{"version":2}', (f) => write(f, { version: 2 }), /the baseline of gh.*2 tool approvals/],
    ['an approval dropped, the baseline kept', (f) => edit(f, (s) => delete s.tools['gh:list_repos']), /1 tool approval/],
    ['a tool the user switched off switched on again', (f) => edit(f, (s) => delete s.tools['gh:delete_repo'].user_disabled), /the locks of 1 tool/],
    ['a running grant removed (its end would never come)', (f) => edit(f, (s) => (s.grants = [])), /the end of 1 time-boxed grant/],
  ]
  for (const [name, tamper, lost] of variants) {
    it(name, async () => {
      const file = await decided()
      tamper(file)
      const store = new StateStore(file)
      expect(store.warning).toMatch(/cannot be trusted/)
      expect(store.warning).toMatch(lost)
      const s = store.current
      expect(s.fail_closed?.moved_to).toMatch(/state\.json\.suspect-/)
      // nothing that lets a tool run is taken from either file; the locks are
      expect(s.servers.gh?.baseline_taken).toBeUndefined()
      expect(s.tools['gh:list_repos']?.approved).toBeUndefined()
      expect(s.tools['gh:delete_repo']?.user_disabled).toBe(true)
      expect(s.tools['gh:archive_repo']?.user_disabled).toBe(true)
      expect(fs.existsSync(s.fail_closed!.moved_to)).toBe(true)
    })
  }

  it('its fail-closed mark removed: it fails closed again', async () => {
    const file = await decided()
    const first = new StateStore(file)
    await first.update((s) => {
      s.fail_closed = { since: new Date().toISOString(), moved_to: '(missing)', servers: ['gh'] }
    })
    edit(file, (s) => delete s.fail_closed)
    const store = new StateStore(file)
    expect(store.warning).toMatch(/its fail-closed mark/)
    expect(store.current.fail_closed).toBeDefined()
  })
})

describe('what Toolgate leaves itself loads as it is', () => {
  it('the same text in both files', async () => {
    const file = await decided()
    const store = new StateStore(file)
    expect(store.warning).toBeNull()
    expect(store.current.tools['gh:list_repos']?.approved?.hash).toBe('h1')
  })

  it('state.json one write ahead with a decision more (a crash between the two writes)', async () => {
    const file = await decided()
    edit(file, (s) => (s.tools['gh:create_issue'] = { approved: { ...APPROVED, hash: 'h3' } }))
    const store = new StateStore(file)
    expect(store.warning).toBeNull()
    expect(store.current.tools['gh:create_issue']?.approved?.hash).toBe('h3')
  })

  it('state.json one write ahead with a decision less (a crash between the two writes of an Enable): taken as it is', async () => {
    const file = await decided()
    const backup = lastGoodPath(file)
    const before = fs.readFileSync(backup, 'utf8')
    const store = new StateStore(file)
    await store.update((s) => delete s.tools['gh:delete_repo'].user_disabled)
    fs.writeFileSync(backup, before) // the kill came after state.json was written, before its last good copy
    const again = new StateStore(file)
    expect(again.warning).toBeNull()
    expect(again.current.tools['gh:delete_repo']?.user_disabled).toBeUndefined()
    expect(again.current.tools['gh:list_repos']?.approved?.hash).toBe('h1')
  })

  it('two writes ahead of its last good copy cannot come from a crash: not trusted', async () => {
    const file = await decided()
    const backup = lastGoodPath(file)
    const before = fs.readFileSync(backup, 'utf8')
    const store = new StateStore(file)
    await store.update((s) => delete s.tools['gh:delete_repo'].user_disabled)
    await store.update((s) => (s.tools['gh:create_issue'] = { approved: { ...APPROVED, hash: 'h3' } }))
    fs.writeFileSync(backup, before)
    const again = new StateStore(file)
    expect(again.warning).toMatch(/cannot be trusted.*the locks of 1 tool/)
    expect(again.current.tools['gh:delete_repo']?.user_disabled).toBe(true)
  })

  it('no decisions while catalog.json shows only inspected servers (or is from before it said where its tools came from)', () => {
    for (const source of ['inspect', undefined]) {
      const dir = tmpDir()
      fs.writeFileSync(
        path.join(dir, 'catalog.json'),
        JSON.stringify({ written_at: new Date().toISOString(), servers: { gh: { tools: [{ name: 'x', description: 'x', inputSchema: {} }], source } } }),
      )
      expect(new StateStore(path.join(dir, 'state.json')).warning).toBeNull()
      write(path.join(dir, 'state.json'), { version: 2 })
      expect(new StateStore(path.join(dir, 'state.json')).warning).toBeNull()
    }
  })

  it('no decisions while catalog.json shows a server that ran: a loss', () => {
    const dir = tmpDir()
    fs.writeFileSync(
      path.join(dir, 'catalog.json'),
      JSON.stringify({
        written_at: new Date().toISOString(),
        servers: { gh: { tools: [{ name: 'x', description: 'x', inputSchema: {} }], source: 'upstream' } },
      }),
    )
    const store = new StateStore(path.join(dir, 'state.json'))
    expect(store.warning).toMatch(/missing with its last good copy, while gh ran before/)
    expect(store.current.fail_closed?.restored_locks).toBe(false)
  })
})
