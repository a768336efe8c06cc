// Time-boxed grants over the real catalog and StateStore (issue 15): each timed decision ends by
// itself and puts back exactly what was there; a permanent decision in between keeps; granting
// again extends without losing the original state; a lost state.json restores the locks a
// running grant would bring back.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { approveServer, approveTool, ingestTools, setToolDisabled } from '../../src/main/core/catalog/decisions'
import { UpstreamManager } from '../../src/main/core/upstream-manager'
import { silentLogger } from '../../src/main/core/log'
import { StateStore } from '../../src/main/core/state/store'
import { buildWorld, fixtureRequests, READ, tool, WORLD_TOOLS, type Fixture } from '../helpers/catalog-fixture'
import { waitFor } from '../helpers/wait'

const T = WORLD_TOOLS
const soon = (ms = 300) => ({ id: `g_test_${Math.random().toString(36).slice(2)}`, until: new Date(Date.now() + ms).toISOString() })

async function keeperOver(fx: Fixture) {
  const manager = new UpstreamManager(fx.catalog, silentLogger())
  const ended: string[] = []
  const setup = fixtureRequests(fx, manager, (ev) => ev.type === 'grant.ended' && ended.push(String(ev.data.message)))
  await setup.keeper.start()
  return { ...setup, ended }
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
    await waitFor(() => status(fx, 'gh:rotate_keys') === 'pending_approval' && status(fx, 'gh:search_code') === 'pending_approval', 5000, 'the grants to end')
    expect(fx.catalog.entry('gh:rotate_keys')!.approval).toBe('pending')
    expect(fx.catalog.entry('gh:search_code')!.approval).toBe('changed')
    expect(fx.catalog.entry('gh:search_code')!.previous!.hash).toBe(before)
    expect(fx.catalog.store.current.grants).toEqual([])
    await waitFor(() => ended.length === 2)
    expect(ended.join(' ')).toMatch(/gh:search_code waits for review of its change again/)
  })

  it('a server approved for a moment goes back into quarantine', async () => {
    const fx = await buildWorld()
    await keeperOver(fx)
    const cfg = fx.catalog.serverConfig('sketchy')!
    await approveServer(fx.catalog, 'sketchy', soon(1500))
    expect(fx.catalog.quarantineOf(cfg)).toBeNull()
    await waitFor(() => fx.catalog.quarantineOf(cfg) === 'review', 5000, 'sketchy back in quarantine')
    // and the user-quarantined one back to the user's quarantine
    const legacy = fx.catalog.serverConfig('legacy')!
    await approveServer(fx.catalog, 'legacy', soon(1500))
    expect(fx.catalog.quarantineOf(legacy)).toBeNull()
    await waitFor(() => fx.catalog.quarantineOf(legacy) === 'user', 5000, 'legacy back in the user quarantine')
  })

  it('a permanent decision during the grant keeps; granting again extends from the original state', async () => {
    const fx = await buildWorld()
    await keeperOver(fx)
    await setToolDisabled(fx.catalog, 'gh', 'archive_repo', false, soon(1500))
    expect(await setToolDisabled(fx.catalog, 'gh', 'archive_repo', false)).toMatch(/for good/)
    await new Promise((r) => setTimeout(r, 1800))
    expect(status(fx, 'gh:archive_repo')).toBe('callable')

    await setToolDisabled(fx.catalog, 'gh', 'list_repos', true)
    await setToolDisabled(fx.catalog, 'gh', 'list_repos', false, soon(1500))
    const longer = soon(4000)
    await setToolDisabled(fx.catalog, 'gh', 'list_repos', false, longer)
    expect(fx.catalog.store.current.grants.map((g) => g.until)).toEqual([longer.until])
    await new Promise((r) => setTimeout(r, 1800))
    expect(status(fx, 'gh:list_repos')).toBe('callable')
    await waitFor(() => status(fx, 'gh:list_repos') === 'disabled_by_user', 10_000, 'the extended grant to end')
  })

  it('a grant that ended while Toolgate was stopped ends at the next start', async () => {
    const fx = await buildWorld()
    const first = await keeperOver(fx)
    first.keeper.stop()
    await setToolDisabled(fx.catalog, 'gh', 'archive_repo', false, soon(50))
    await new Promise((r) => setTimeout(r, 100))
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
