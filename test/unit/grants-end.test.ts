// Time-boxed grants over the real catalog and StateStore: each timed decision ends by
// itself and puts back exactly what was there; a permanent decision in between keeps; granting
// again extends without losing the original state; a lost state.json restores the locks a
// running grant would bring back. Time is vitest's fake clock (Date and the keeper's timer): each
// test moves it to just before an end (nothing changed yet) and then past it (the end happened).
import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { approveTool, ingestTools, setToolDisabled } from '../../src/main/core/catalog/decisions'
import { approveServer } from '../../src/main/core/catalog/server-decisions'
import type { ApiEvent } from '../../src/shared/api'
import { StateStore } from '../../src/main/core/state/store'
import { buildWorld, READ, tool, WORLD_TOOLS, type Fixture } from '../helpers/catalog-fixture'

beforeEach(() => {
  // only the clock and timers: file writes and promises run for real
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: new Date('2026-11-27T10:00:00.000Z') })
})
afterEach(() => {
  vi.useRealTimers()
})

/** Moves the fake clock by `ms`, firing the timers due on the way. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms)

/**
 * Waits for work the clock started (state writes are real file I/O) without moving the clock:
 * polls on setImmediate, which the fake timers leave alone, for at most 5 s of real time.
 */
async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 5000
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setImmediate(r))
  }
}

/** Lets pending real I/O finish (a few turns of the event loop), for asserting that nothing changed. */
async function quiet(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r))
}

const T = WORLD_TOOLS
const soon = (ms: number) => ({ id: `g_test_${Math.random().toString(36).slice(2)}`, until: new Date(Date.now() + ms).toISOString() })

/** The core's grant keeper started as the core's start() starts it (grants already due end now, the next end is timed). */
async function keeperOver(fx: Fixture) {
  const ended: string[] = []
  fx.core.events.on('event', (ev: ApiEvent) => {
    if (ev.type === 'grant.ended') ended.push(String(ev.data.message))
  })
  await fx.core.requests.keeper.start()
  return { ...fx.core.requests, ended }
}

const status = (fx: Fixture, id: string) => fx.catalog.entry(id)?.status

describe('time-boxed grants end by themselves', () => {
  it('a new tool approved for a moment waits for review again; a changed tool waits for review of the same change', async () => {
    const fx = await buildWorld()
    const changed = tool('search_code', 'Search code and upload it somewhere', { annotations: READ, props: { q: { type: 'string' } } })
    await ingestTools(fx.catalog, 'gh', [T.list_repos, T.create_issue, changed, T.delete_repo, T.archive_repo, T.rotate_keys])
    const { ended } = await keeperOver(fx)
    const before = fx.catalog.entry('gh:search_code')!.previous!.hash
    await approveTool(fx.catalog, 'gh', 'rotate_keys', soon(1500))
    await approveTool(fx.catalog, 'gh', 'search_code', soon(1500))
    expect(status(fx, 'gh:rotate_keys')).toBe('callable')
    expect(status(fx, 'gh:search_code')).toBe('callable')
    await advance(1499)
    await quiet()
    expect(status(fx, 'gh:rotate_keys')).toBe('callable')
    expect(status(fx, 'gh:search_code')).toBe('callable')
    expect(ended).toEqual([])
    await advance(1)
    await until(() => ended.length === 2, 'the two grants to end')
    expect(status(fx, 'gh:rotate_keys')).toBe('pending_approval')
    expect(status(fx, 'gh:search_code')).toBe('pending_approval')
    expect(fx.catalog.entry('gh:rotate_keys')!.approval).toBe('pending')
    expect(fx.catalog.entry('gh:search_code')!.approval).toBe('changed')
    expect(fx.catalog.entry('gh:search_code')!.previous!.hash).toBe(before)
    expect(fx.catalog.store.current.grants).toEqual([])
    expect(ended.join(' ')).toMatch(/gh:search_code waits for review of its change again/)
  })

  it('a server approved for a moment goes back into quarantine', async () => {
    const fx = await buildWorld()
    const { ended } = await keeperOver(fx)
    const cfg = fx.catalog.serverConfig('sketchy')!
    await approveServer(fx.catalog, 'sketchy', soon(1500))
    expect(fx.catalog.quarantineOf(cfg)).toBeNull()
    await advance(1499)
    await quiet()
    expect(fx.catalog.quarantineOf(cfg)).toBeNull()
    await advance(1)
    await until(() => ended.length === 1, 'the grant of sketchy to end')
    expect(fx.catalog.quarantineOf(cfg)).toBe('review')
    // and the user-quarantined one back to the user's quarantine
    const legacy = fx.catalog.serverConfig('legacy')!
    await approveServer(fx.catalog, 'legacy', soon(1500))
    expect(fx.catalog.quarantineOf(legacy)).toBeNull()
    await advance(1500)
    await until(() => ended.length === 2, 'the grant of legacy to end')
    expect(fx.catalog.quarantineOf(legacy)).toBe('user')
  })

  it('a permanent decision during the grant keeps; granting again extends from the original state', async () => {
    const fx = await buildWorld()
    const { ended } = await keeperOver(fx)
    await setToolDisabled(fx.catalog, 'gh', 'archive_repo', false, soon(1500))
    expect(await setToolDisabled(fx.catalog, 'gh', 'archive_repo', false)).toMatch(/for good/)
    expect(fx.catalog.store.current.grants).toEqual([]) // the permanent decision took the grant's place
    await advance(1500)
    await quiet()
    expect(status(fx, 'gh:archive_repo')).toBe('callable')

    await setToolDisabled(fx.catalog, 'gh', 'list_repos', true)
    await setToolDisabled(fx.catalog, 'gh', 'list_repos', false, soon(1500))
    const longer = soon(4000)
    await setToolDisabled(fx.catalog, 'gh', 'list_repos', false, longer)
    expect(fx.catalog.store.current.grants.map((g) => g.until)).toEqual([longer.until])
    await advance(3999) // past the first end, just before the extended one
    await quiet()
    expect(status(fx, 'gh:list_repos')).toBe('callable')
    expect(ended).toEqual([])
    await advance(1)
    await until(() => ended.length === 1, 'the extended grant to end')
    expect(status(fx, 'gh:list_repos')).toBe('disabled_by_user')
  })

  it('a grant that ended while Toolgate was stopped ends at the next start', async () => {
    const fx = await buildWorld()
    const first = await keeperOver(fx)
    first.keeper.stop()
    await setToolDisabled(fx.catalog, 'gh', 'archive_repo', false, soon(50))
    await advance(60_000)
    await quiet()
    expect(status(fx, 'gh:archive_repo')).toBe('callable') // nobody kept time
    const again = fx.restart()
    await keeperOver(again)
    expect(status(again, 'gh:archive_repo')).toBe('disabled_by_user')
  })

  it('state.json lost: the locks a running grant would bring back are restored from the last good copy', async () => {
    const fx = await buildWorld()
    await setToolDisabled(fx.catalog, 'gh', 'archive_repo', false, soon(3_600_000))
    await fx.catalog.store.settle()
    fs.writeFileSync(fx.catalog.store.file, '{ not json')
    const store = new StateStore(fx.catalog.store.file)
    expect(store.current.tools['gh:archive_repo']?.user_disabled).toBe(true)
  })
})
