// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../src/shared/api'
import { createAppStore } from '../../src/renderer/store/store'
import { nonZeroCounts } from '../../src/renderer/store/selectors'
import { summarizeServers } from '../../src/shared/summary'
import { worldApi } from '../helpers/world-api'
import { ingestTools } from '../../src/main/core/catalog/decisions'
import { WORLD_TOOLS, tool } from '../helpers/catalog-fixture'

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms))

describe('app store', () => {
  it('loads info, status and servers and subscribes to events', async () => {
    const api = await worldApi()
    const store = createAppStore(api, { refreshDelayMs: 5 })
    const stop = store.getState().start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    const s = store.getState()
    expect(s.info?.config_path).toContain('mcp_config.json')
    expect(s.servers.map((x) => x.name)).toEqual(['gh', 'files', 'legacy', 'sketchy'])
    expect(api.listenerCount).toBe(1)
    stop()
    expect(api.listenerCount).toBe(0)
  })

  it('refetches servers and the open tool lists when the core sends an event', async () => {
    const api = await worldApi()
    const store = createAppStore(api, { refreshDelayMs: 5 })
    store.getState().start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    await store.getState().loadTools('gh')
    // something changes in the core behind the UI's back: gh lists a new tool (pending approval)
    const T = WORLD_TOOLS
    await ingestTools(api.world.catalog, 'gh', [
      T.list_repos,
      T.create_issue,
      T.search_code,
      T.delete_repo,
      T.archive_repo,
      T.rotate_keys,
      tool('fork_repo', 'Fork a repository'),
    ])
    await vi.waitFor(() => expect(store.getState().tools.gh.map((t) => t.tool)).toContain('fork_repo'))
    expect(store.getState().servers[0].counts.pending_approval).toBe(2)
  })

  it('coalesces a burst of events into one refetch', async () => {
    const api = await worldApi()
    const store = createAppStore(api, { refreshDelayMs: 10 })
    store.getState().start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    const before = api.calls.filter((c) => c === 'servers').length
    for (let i = 0; i < 5; i++) api.emit({ type: 'servers.changed', data: { servers: ['gh'] } })
    await tick(60)
    expect(api.calls.filter((c) => c === 'servers').length).toBe(before + 1)
  })

  it('re-reads info after config.reloaded and config.error', async () => {
    const api = await worldApi()
    const store = createAppStore(api, { refreshDelayMs: 5 })
    store.getState().start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    // the operator saves a config that does not load: the core reports it (config.error)
    api.editConfigFile('{"mcpServers": {"x": {}}}')
    await vi.waitFor(() => expect(store.getState().info?.config_error).toMatch(/mcpServers\.x\.command: a stdio server needs "command"/))
  })

  it('an action calls the Api, shows its message and refreshes', async () => {
    const api = await worldApi()
    const store = createAppStore(api, { refreshDelayMs: 5 })
    store.getState().start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    await store.getState().toolAction('gh', 'archive_repo', 'enable')
    expect(api.calls).toContain('toolAction gh archive_repo enable')
    expect(store.getState().toast).toMatch(/gh:archive_repo/)
    expect(store.getState().servers[0].counts.disabled_by_user).toBeFalsy()
    expect(store.getState().servers[0].counts.callable).toBe(4)
  })

  it('a failed action becomes a visible banner, not a silent no-op', async () => {
    const api = await worldApi()
    const store = createAppStore(api, { refreshDelayMs: 5 })
    store.getState().start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    // enabling a config-denied tool: the core refuses with 409 and says it is operator policy
    await store.getState().toolAction('gh', 'delete_repo', 'enable')
    const banners = store.getState().banners.map((b) => b.message)
    expect(banners).toHaveLength(1)
    expect(banners[0]).toMatch(/gh:delete_repo/)
    expect(banners[0]).toMatch(/mcp_config\.json/)
    store.getState().dismiss(store.getState().banners[0].id)
    expect(store.getState().banners).toEqual([])
  })

  it('a refused key (401) switches to the key screen state', async () => {
    const api = await worldApi()
    api.failNext('status', new ApiError('unauthorized', 'bad key', 401))
    const store = createAppStore(api)
    store.getState().start()
    await vi.waitFor(() => expect(store.getState().authError?.message).toBe('bad key'))
  })

  it('an unreachable core on first load is a load error', async () => {
    const api = await worldApi()
    api.failNext('servers', new ApiError('unreachable', 'Cannot reach Toolgate', 0))
    const store = createAppStore(api)
    store.getState().start()
    await vi.waitFor(() => expect(store.getState().loadError).toBe('Cannot reach Toolgate'))
    await store.getState().refresh()
    expect(store.getState().loaded).toBe(true)
  })

  it('search keeps the raw text and drops stale answers', async () => {
    const api = await worldApi()
    const store = createAppStore(api)
    store.getState().setQuery('repositories')
    await store.getState().runSearch()
    const text = store.getState().result?.text ?? ''
    expect(JSON.parse(text).tools.map((t: { name: string }) => t.name)).toEqual(['gh:list_repos', 'gh:create_issue', 'gh:search_code'])
    expect(api.searches.at(-1)).toEqual({ query: 'repositories', limit: 15, include_disabled: false })
    store.getState().setQuery('   ')
    await store.getState().runSearch()
    expect(store.getState().result).toBeNull()
  })

  it('selectors: waiting = servers to review + pending tools; zero counts dropped', async () => {
    const api = await worldApi()
    const { servers } = await api.servers()
    // sketchy (review) + gh:rotate_keys; legacy is the user's own hold, not waiting on the user
    expect(summarizeServers(servers).waiting).toBe(2)
    expect(nonZeroCounts(servers[0])).toEqual([
      { status: 'callable', n: 3 },
      { status: 'disabled_by_config', n: 1 },
      { status: 'disabled_by_user', n: 1 },
      { status: 'pending_approval', n: 1 },
    ])
    expect(nonZeroCounts(servers[1])).toEqual([{ status: 'server_disabled', n: 2 }])
  })
})
