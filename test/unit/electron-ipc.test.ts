import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', () => import('../helpers/fake-electron'))
import { fake, ipcMain, ipcRenderer, FakeBrowserWindow } from '../helpers/fake-electron'
import { forwardEvents, registerIpcHandlers } from '../../src/main/electron/ipc'
import { API_OPS, EVENT_CHANNEL } from '../../src/shared/ipc'
import { IpcApi } from '../../src/renderer/api/ipc'
import type { ToolgateBridge } from '../../src/shared/ipc'
import { ApiError, type ApiEvent } from '../../src/shared/api'
import { FakeApi, sampleServers } from '../helpers/fake-api'

beforeEach(() => fake.reset())

// the preload runs once per renderer, like in Electron: capture what it exposed
let exposed: { key: string; bridge: ToolgateBridge } | null = null
async function loadPreload(): Promise<ToolgateBridge> {
  if (!exposed) {
    await import('../../src/preload/index')
    const [key, bridge] = [...fake.exposed.entries()][0] as [string, ToolgateBridge]
    exposed = { key, bridge }
  }
  expect(exposed.key).toBe('toolgate')
  return exposed.bridge
}

describe('IPC handlers', () => {
  it('register exactly one toolgate:<op> channel per Api operation', () => {
    registerIpcHandlers(ipcMain, new FakeApi(), { isTrustedSender: () => true })
    expect([...fake.handlers.keys()].sort()).toEqual(
      ['approveAll', 'info', 'search', 'serverAction', 'servers', 'stats', 'status', 'toolAction', 'tools'].map((o) => `toolgate:${o}`).sort(),
    )
    expect(API_OPS.length).toBe(9)
  })

  it('map 1:1 onto the Api with the same arguments and results', async () => {
    const api = new FakeApi(sampleServers())
    registerIpcHandlers(ipcMain, api, { isTrustedSender: () => true })
    const call = (op: string, ...args: unknown[]) => fake.handlers.get(`toolgate:${op}`)!({ sender: null }, ...args)
    expect(await call('info')).toEqual({ ok: true, value: await api.info() })
    expect(await call('status')).toEqual({ ok: true, value: await api.status() })
    expect(await call('servers')).toEqual({ ok: true, value: await api.servers() })
    expect(await call('tools', 'github')).toEqual({ ok: true, value: await api.tools('github') })
    expect(await call('stats')).toEqual({ ok: true, value: await api.stats() })
    const search = { query: 'repo', limit: 5, include_disabled: true }
    expect(await call('search', search)).toEqual({ ok: true, value: await api.search(search) })
    api.calls.length = 0
    await call('serverAction', 'shady', 'approve')
    await call('toolAction', 'github', 'list_repos', 'disable')
    await call('approveAll', 'github')
    expect(api.calls).toEqual(['serverAction shady approve', 'toolAction github list_repos disable', 'approveAll github'])
  })

  it('return errors as data, keeping code and status', async () => {
    const api = new FakeApi(sampleServers())
    registerIpcHandlers(ipcMain, api, { isTrustedSender: () => true })
    const res = await fake.handlers.get('toolgate:toolAction')!({}, 'github', 'delete_repo', 'enable')
    expect(res).toEqual({ ok: false, error: { code: 'config_lock', message: 'denied by enabled_tools/disabled_tools in mcp_config.json', status: 409 } })
  })

  it('reject bad arguments before they reach the core', async () => {
    const api = new FakeApi(sampleServers())
    registerIpcHandlers(ipcMain, api, { isTrustedSender: () => true })
    const res = (await fake.handlers.get('toolgate:serverAction')!({}, 'github', 'rm -rf')) as { ok: boolean; error: { code: string } }
    expect(res.ok).toBe(false)
    expect(res.error.code).toBe('bad_request')
    expect(((await fake.handlers.get('toolgate:tools')!({}, 42)) as { ok: boolean }).ok).toBe(false)
    expect(api.calls).toEqual([])
  })

  it('refuse calls from a sender that is not our window', async () => {
    const api = new FakeApi(sampleServers())
    registerIpcHandlers(ipcMain, api, { isTrustedSender: () => false })
    const res = (await fake.handlers.get('toolgate:servers')!({})) as { ok: boolean; error: { status: number } }
    expect(res).toMatchObject({ ok: false, error: { status: 403 } })
    expect(api.calls).toEqual([])
  })

  it('can be removed again', () => {
    const off = registerIpcHandlers(ipcMain, new FakeApi(), { isTrustedSender: () => true })
    off()
    expect(fake.handlers.size).toBe(0)
  })

  it('core events are forwarded on the one event channel', () => {
    const api = new FakeApi()
    const sent: ApiEvent[] = []
    const off = forwardEvents(api, (ev) => sent.push(ev))
    api.emit({ type: 'tools.changed', data: { servers: ['x'] } })
    off()
    api.emit({ type: 'servers.changed', data: {} })
    expect(sent).toEqual([{ type: 'tools.changed', data: { servers: ['x'] } }])
  })
})

describe('preload bridge', () => {
  it('exposes only invoke and onEvent as window.toolgate, never ipcRenderer', async () => {
    const bridge = await loadPreload()
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'onEvent'])
    expect(Object.values(bridge)).not.toContain(ipcRenderer)
  })

  it('rejects operations outside the whitelist without touching IPC', async () => {
    const bridge = await loadPreload()
    await expect(bridge.invoke('openDevTools' as never)).rejects.toThrow('unknown Toolgate operation')
    expect(ipcRenderer.invoke).not.toHaveBeenCalled()
  })

  it('renderer → preload → main → core round trip for every operation', async () => {
    const api = new FakeApi(sampleServers())
    const win = new FakeBrowserWindow({})
    registerIpcHandlers(ipcMain, api, { isTrustedSender: (e) => (e as { sender: unknown }).sender === win.webContents })
    ipcRenderer.senderWindow = win
    const bridge = await loadPreload()
    const client = new IpcApi(bridge)
    expect((await client.servers()).servers.map((s) => s.name)).toEqual(['github', 'shady', 'held', 'notes'])
    expect((await client.tools('github')).tools.length).toBe(5)
    expect((await client.info()).config_path).toContain('mcp_config.json')
    expect((await client.status()).servers.total).toBe(4)
    expect((await client.stats()).retrieve_calls).toBe(7)
    expect(JSON.parse(await client.search({ query: 'repo' })).total).toBe(1)
    await client.serverAction('shady', 'approve')
    await client.toolAction('github', 'list_prs', 'approve')
    await client.approveAll('github')
    await expect(client.serverAction('held', 'approve')).rejects.toBeInstanceOf(ApiError)
    expect(api.calls.filter((c) => /Action|approveAll/.test(c))).toEqual([
      'serverAction shady approve',
      'toolAction github list_prs approve',
      'approveAll github',
      'serverAction held approve',
    ])
    ipcRenderer.senderWindow = null
  })

  it('events from main reach the renderer listener until it unsubscribes', async () => {
    const bridge = await loadPreload()
    const seen: ApiEvent[] = []
    const off = bridge.onEvent((e) => seen.push(e))
    const deliver = (ev: ApiEvent) => fake.rendererListeners.get(EVENT_CHANNEL)?.forEach((l) => l({}, ev))
    deliver({ type: 'servers.changed', data: {} })
    off()
    deliver({ type: 'tools.changed', data: {} })
    expect(seen).toEqual([{ type: 'servers.changed', data: {} }])
  })
})
