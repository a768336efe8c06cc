// @vitest-environment happy-dom
// What the window fetches after a click and after each kind of event, counted over the real
// control service (worldApi): one click is one refresh of what changed, and an event has what it
// names reloaded, nothing else.
import { describe, expect, it, vi } from 'vitest'
import { createAppStore, type AppStore } from '../../src/renderer/store/store'
import { worldApi, type WorldApi } from '../helpers/world-api'
import { ingestPrompts } from '../../src/main/core/catalog/prompt-decisions'
import { messagesDigest } from '../../src/main/core/upstream/prompts'
import type { PromptDefinition } from '../../src/shared/prompts'

const SUMMARY: PromptDefinition = {
  name: 'summary',
  description: 'Summarize the open issues',
  arguments: [],
  ...messagesDigest([{ role: 'user', content: { type: 'text', text: 'Summarize my issues' } }]),
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A started store with the tool lists of gh and files open, and the calls counted from here on. */
async function opened(): Promise<{ api: WorldApi; store: AppStore; calls: () => string[]; count: (call: string) => number; stop: () => void }> {
  const api = await worldApi()
  const store = createAppStore(api, { refreshDelayMs: 10, settleMs: 150 })
  const stop = store.getState().start()
  await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
  await store.getState().loadTools('gh')
  await store.getState().loadTools('files')
  await store.getState().loadConfirmations()
  await tick(50)
  const from = api.calls.length
  const calls = () => api.calls.slice(from)
  return { api, store, stop, calls, count: (call) => calls().filter((c) => c === call).length }
}

describe('one click, one refresh of what changed', () => {
  it('disabling a tool fetches the server list, the status and that server’s tools once each; nothing of the other servers, no info, no requests', async () => {
    const { store, count, stop } = await opened()
    await store.getState().toolAction('gh', 'list_repos', 'disable')
    // the toast comes with the window already showing the change
    expect(store.getState().toast).toMatch(/gh:list_repos/)
    expect(store.getState().tools.gh.find((t) => t.tool === 'list_repos')?.status).toBe('disabled_by_user')
    await tick(200)
    expect(count('toolAction gh list_repos disable')).toBe(1)
    expect([count('servers'), count('status'), count('tools gh')]).toEqual([1, 1, 1])
    expect([count('tools files'), count('info'), count('requests'), count('confirmations')]).toEqual([0, 0, 0, 0])
    stop()
  })

  it('approving a prompt fetches that server’s tools and prompts once, with the server list and status', async () => {
    const api = await worldApi()
    await ingestPrompts(api.world.catalog, 'gh', [])
    await ingestPrompts(api.world.catalog, 'gh', [SUMMARY])
    const store = createAppStore(api, { refreshDelayMs: 10, settleMs: 150 })
    const stop = store.getState().start()
    await vi.waitFor(() => expect(store.getState().loaded).toBe(true))
    await store.getState().loadTools('gh')
    await store.getState().loadPrompts('gh')
    await tick(50)
    const from = api.calls.length
    const hash = store.getState().prompts.gh[0].approval.hash
    await store.getState().promptAction('gh', 'summary', 'approve', { hash })
    expect(store.getState().prompts.gh[0].status).toBe('callable')
    await tick(200)
    const calls = api.calls.slice(from)
    const count = (c: string) => calls.filter((x) => x === c).length
    expect([count('servers'), count('status'), count('tools gh'), count('prompts gh')]).toEqual([1, 1, 1, 1])
    expect([count('info'), count('requests')]).toEqual([0, 0])
    stop()
  })

  it('an action that changes nothing fetches nothing and still answers', async () => {
    const { store, calls, stop } = await opened()
    await store.getState().serverAction('gh', 'inspect')
    expect(store.getState().toast).toMatch(/is approved/)
    await tick(200)
    expect(calls()).toEqual(['serverAction gh inspect'])
    stop()
  })
})

describe('an event has what it names reloaded', () => {
  it('a burst naming two servers: one status and server list, the tools of each named open server once, not the others', async () => {
    const { api, count, stop } = await opened()
    api.emit({ type: 'servers.changed', data: { servers: ['gh'] } })
    api.emit({ type: 'tools.changed', data: { servers: ['gh'] } })
    api.emit({ type: 'servers.changed', data: { servers: ['legacy'] } })
    await tick(150)
    expect([count('servers'), count('status'), count('tools gh')]).toEqual([1, 1, 1])
    // legacy's tools were never opened; files was not named
    expect([count('tools legacy'), count('tools files'), count('info'), count('requests')]).toEqual([0, 0, 0, 0])
    stop()
  })

  it('an event naming a server removed meanwhile fetches none of its lists (they would answer 404)', async () => {
    const { api, store, count, stop } = await opened()
    // the window had "gone" open (its tools, prompts and resources shown) before it was removed
    store.setState((s) => ({
      tools: { ...s.tools, gone: [] },
      prompts: { ...s.prompts, gone: [] },
      resources: { ...s.resources, gone: { resources: [], templates: [] } as never },
    }))
    api.emit({ type: 'servers.changed', data: { servers: ['gone', 'gh'] } })
    await tick(150)
    expect([count('servers'), count('tools gh')]).toEqual([1, 1])
    expect([count('tools gone'), count('prompts gone'), count('resources gone')]).toEqual([0, 0, 0])
    stop()
  })

  it('a config error re-reads the info only; a secret set re-reads the info and the secrets list once loaded', async () => {
    const { api, store, count, stop } = await opened()
    // the operator saves a config that does not load: the core reports it (config.error)
    api.editConfigFile('{"mcpServers": {"x": {}}}')
    await vi.waitFor(() => expect(store.getState().info?.config_error).toMatch(/mcpServers\.x\.command: a stdio server needs "command"/))
    await tick(50)
    expect([count('info'), count('servers'), count('status'), count('secrets')]).toEqual([1, 0, 0, 0])
    await store.getState().loadSecrets()
    api.emit({ type: 'secrets.changed', data: { names: ['GH_TOKEN'] } })
    await tick(150)
    expect([count('info'), count('secrets'), count('servers')]).toEqual([2, 2, 0])
    stop()
  })

  it('requests and confirmations reload their own lists; a reconnect (events may be missing) reloads everything', async () => {
    const { api, count, stop } = await opened()
    api.emit({ type: 'requests.changed', data: { id: 'r1', status: 'pending', new: true } })
    api.emit({ type: 'confirmations.changed', data: { id: 'c1', status: 'pending', new: true } })
    await tick(150)
    expect([count('requests'), count('confirmations'), count('servers'), count('info')]).toEqual([1, 1, 0, 0])
    api.emit({ type: 'config.reloaded', data: { reconnected: true } })
    await tick(150)
    expect([count('info'), count('servers'), count('status'), count('tools gh'), count('tools files'), count('requests'), count('confirmations')]).toEqual([
      1, 1, 1, 1, 1, 2, 2,
    ])
    stop()
  })

  it('an activity record reloads nothing', async () => {
    const { api, store, calls, stop } = await opened()
    await store.getState().toolAction('gh', 'list_repos', 'disable')
    await tick(150)
    const { events } = await api.service.activity({})
    expect(events.length).toBeGreaterThan(0)
    const from = calls().length
    for (const e of events) api.emit({ type: 'activity', data: e })
    await tick(150)
    expect(calls().slice(from)).toEqual([])
    stop()
  })
})
