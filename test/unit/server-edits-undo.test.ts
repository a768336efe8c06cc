// Remove server and its Undo: the removed server's approvals are held for the undo
// window and dropped after it (a re-add then starts from review), and the hold is one per core,
// shared by every origin view of the control service (the window, the tray, the CLI, the API);
// remove and undo are recorded as the user's decisions.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ServerEdits, UNDO_WINDOW_MS } from '../../src/main/core/control/server-edits'
import { approveServer } from '../../src/main/core/catalog/server-decisions'
import { ApiError } from '../../src/shared/api'
import { makeFixture } from '../helpers/catalog-fixture'

afterEach(() => {
  vi.useRealTimers()
})

function world() {
  const fx = makeFixture({ mcpServers: { memo: { command: 'node', args: ['memo.js'] } } })
  const edits = new ServerEdits({ catalog: fx.catalog, configPath: fx.configPath, reloadConfig: () => fx.reloadConfig() })
  return { fx, edits }
}

describe('Remove server, then Undo', () => {
  it('within the undo window, restore brings the entry and the approval back', async () => {
    const { fx, edits } = world()
    await approveServer(fx.catalog, 'memo')
    const approved = structuredClone(fx.catalog.store.current.servers.memo)
    expect(approved?.approved_identity).toEqual(expect.any(String))
    await edits.remove('memo')
    expect(fx.catalog.serverConfig('memo')).toBeUndefined()
    expect(fx.catalog.store.current.servers.memo).toBeUndefined()
    await edits.restore('memo')
    expect(fx.catalog.serverConfig('memo')?.command).toBe('node')
    expect(fx.catalog.store.current.servers.memo).toEqual(approved)
  })

  it('after the undo window the approvals are dropped: no restore, and adding it again starts from review', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const { fx, edits } = world()
    await approveServer(fx.catalog, 'memo')
    expect(fx.catalog.store.current.servers.memo?.approved_identity).toEqual(expect.any(String))
    const removed = await edits.remove('memo')
    expect(Date.parse(removed.undo_until) - Date.now()).toBe(UNDO_WINDOW_MS)
    vi.advanceTimersByTime(UNDO_WINDOW_MS + 1)
    const err = await edits.restore('memo').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).code).toBe('nothing_to_restore')
    await edits.add({ name: 'memo', command: 'node', args: ['memo.js'] })
    expect(fx.catalog.serverConfig('memo')).toBeTruthy()
    expect(fx.catalog.store.current.servers.memo?.approved_identity).toBeUndefined()
    expect(fx.catalog.quarantineOf(fx.catalog.serverConfig('memo')!)).not.toBeNull()
  })

  it('the undo is held once per core: a remove from one surface can be undone from another', async () => {
    const { fx } = world()
    const api = fx.core.api
    await approveServer(fx.catalog, 'memo')
    await api.as({ by: 'user', via: 'window' }).removeServer('memo')
    const r = await api.as({ by: 'user', via: 'cli' }).restoreServer('memo')
    expect(r.ok).toBe(true)
    expect(fx.catalog.store.current.servers.memo?.approved_identity).toEqual(expect.any(String))
    // both acts are the user's decisions in the activity record, with the surface they came from
    const { events } = await api.activity({ kind: 'decision' })
    const acts = events.map((e) => (e.kind === 'decision' ? `${e.action} ${e.server} ${e.by}/${e.via}` : ''))
    expect(acts).toEqual(expect.arrayContaining(['remove memo user/window', 'add memo user/cli']))
  })
})
