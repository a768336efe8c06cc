// IPC between the renderer, the preload and the main process, with electron mocked and the real
// control service over a real catalog (buildWorld) behind the handlers; senders are checked by the
// real frame validator of the app (only our window's main frame showing our page).
import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', () => import('../helpers/fake-electron'))
import { fake, ipcMain, ipcRenderer, FakeBrowserWindow, FakeFrame } from '../helpers/fake-electron'
import { forwardEvents, registerIpcHandlers } from '../../src/main/electron/ipc'
import { senderValidator } from '../../src/main/electron/ipc-sender'
import { API_OPS, EVENT_CHANNEL, type IpcResult, type ToolgateBridge } from '../../src/shared/ipc'
import { IpcApi } from '../../src/renderer/api/ipc'
import { ApiError, type ApiEvent } from '../../src/shared/api'
import { worldApi, type WorldApi } from '../helpers/world-api'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'
import type { WebContents } from 'electron'

beforeEach(() => fake.reset())

const PAGE = '/app/out/renderer/index.html'

/** Our window showing our page, the real core's service, the handlers registered as the app does. */
async function wired(): Promise<{ api: WorldApi; win: FakeBrowserWindow; off: () => void }> {
  const api = await worldApi()
  const win = new FakeBrowserWindow({})
  await win.loadFile(PAGE)
  const own = () => ({ webContents: win.webContents as unknown as WebContents, isDestroyed: () => win.destroyed })
  const off = registerIpcHandlers(ipcMain, api, { isTrustedSender: senderValidator(own, { file: PAGE }) })
  ipcRenderer.senderWindow = win
  return { api, win, off }
}

/** A call as the preload makes it, from the main frame of our window. */
const call = (op: string, ...args: unknown[]) => ipcRenderer.invoke(`toolgate:${op}`, ...args) as Promise<IpcResult>

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
  it('register exactly one toolgate:<op> channel per Api operation', async () => {
    await wired()
    // the operations themselves are pinned by name in operations-table.test.ts (each with its request)
    expect(API_OPS.length).toBeGreaterThan(30)
    expect([...fake.handlers.keys()].sort()).toEqual(API_OPS.map((o) => `toolgate:${o}`).sort())
  })

  it('signIn opens the authorization page in the system browser (openExternal) and says so; the renderer opens nothing', async () => {
    const api = await worldApi()
    const page = 'https://auth.example/authorize?state=s'
    api.signIn = vi.fn(async (server: string) => ({ server, authorization_url: page, expires_at: '2030-01-01T00:00:00.000Z' }))
    const win = new FakeBrowserWindow({})
    await win.loadFile(PAGE)
    const own = () => ({ webContents: win.webContents as unknown as WebContents, isDestroyed: () => win.destroyed })
    const openExternal = vi.fn(async () => undefined)
    registerIpcHandlers(ipcMain, api, { isTrustedSender: senderValidator(own, { file: PAGE }), openExternal })
    ipcRenderer.senderWindow = win
    expect(await call('signIn', 'remote')).toEqual({
      ok: true,
      value: { server: 'remote', authorization_url: page, expires_at: '2030-01-01T00:00:00.000Z', opened: true },
    })
    expect(openExternal).toHaveBeenCalledWith(page)
    expect(await call('signIn', '')).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(openExternal).toHaveBeenCalledTimes(1)
  })

  it('map 1:1 onto the core with the same arguments and results', async () => {
    const { api } = await wired()
    const svc = api.service
    expect(await call('status')).toMatchObject({ ok: true, value: { servers: { total: 4, quarantined: 2, disabled: 1 } } })
    expect(await call('servers')).toEqual({ ok: true, value: await svc.servers() })
    expect(await call('tools', 'gh')).toEqual({ ok: true, value: await svc.tools('gh') })
    expect(await call('info')).toMatchObject({ ok: true, value: { config_path: api.world.configPath } })
    const search = { query: 'repository', limit: 5, include_disabled: true }
    const found = await call('search', search)
    expect(found).toEqual({ ok: true, value: await svc.search(search) })
    expect(JSON.parse((found as { value: string }).value).tools.map((t: { name: string }) => t.name)).toContain('gh:list_repos')
    expect(await call('toolAction', 'gh', 'list_repos', 'disable')).toMatchObject({ ok: true })
    expect(api.world.catalog.entry('gh:list_repos')!.status).toBe('disabled_by_user')
    expect(await call('approveAll', 'gh')).toMatchObject({ ok: true })
    expect(api.world.catalog.entry('gh:rotate_keys')!.status).toBe('callable')
    expect(await call('serverAction', 'legacy', 'approve')).toMatchObject({ ok: true })
    expect(api.world.catalog.entry('legacy:search_tickets')!.status).toBe('callable')
  })

  it('return errors as data, keeping code and status', async () => {
    await wired()
    const res = await call('toolAction', 'gh', 'delete_repo', 'enable')
    expect(res).toMatchObject({ ok: false, error: { status: 409 } })
    expect((res as { error: { message: string } }).error.message).toMatch(/mcp_config\.json/)
    expect(await call('tools', 'nope')).toMatchObject({ ok: false, error: { status: 404 } })
  })

  it('reject bad arguments before they reach the core', async () => {
    const { api } = await wired()
    const res = await call('serverAction', 'gh', 'rm -rf')
    expect(res).toMatchObject({ ok: false, error: { code: 'bad_request', status: 400 } })
    expect(await call('tools', 42)).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(await call('toolAction', 'gh', '', 'disable')).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(await call('toolAction', 'gh', 'rotate_keys', 'approve', { hash: 'x', also: 1 })).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(await call('toolAction', 'gh', 'rotate_keys', 'approve', { hash: 7 })).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(await call('classifyTool', 'gh', 'rotate_keys', 'harmless', 'h')).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(await call('classifyTool', 'gh', 'rotate_keys', 'read')).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    expect(api.calls).toEqual([])
  })

  it('classify carries the hash of the definition shown: another one is refused, the shown one classifies', async () => {
    const { api } = await wired()
    // every world tool is annotated: the user may still make one stricter (list_repos is read by its hints)
    const entry = api.world.catalog.entry('gh:list_repos')
    expect(entry?.variant).toBe('read')
    const hash = entry?.hash ?? ''
    expect(await call('classifyTool', 'gh', 'list_repos', 'destructive', 'not-the-shown-one')).toMatchObject({
      ok: false,
      error: { code: 'definition_changed', status: 409 },
    })
    expect(await call('classifyTool', 'gh', 'list_repos', 'destructive', hash)).toMatchObject({ ok: true })
    expect(api.world.catalog.entry('gh:list_repos')?.variant).toBe('destructive')
  })

  it('approve and reject carry the hash of the reviewed definition: another one is refused', async () => {
    const { api } = await wired()
    expect(await call('toolAction', 'gh', 'rotate_keys', 'reject', { hash: 'not-the-shown-one' })).toMatchObject({
      ok: false,
      error: { code: 'definition_changed', status: 409 },
    })
    expect(api.world.catalog.entry('gh:rotate_keys')!.status).toBe('pending_approval')
    const hash = api.world.catalog.entry('gh:rotate_keys')!.hash
    expect(await call('toolAction', 'gh', 'rotate_keys', 'reject', { hash })).toMatchObject({ ok: true })
    expect(api.world.catalog.entry('gh:rotate_keys')!.status).toBe('disabled_by_user')
  })

  it('refuse calls from an iframe of our window and from any other webContents', async () => {
    const { api, win } = await wired()
    ipcRenderer.senderFrame = new FakeFrame(win.webContents.mainFrame.url, win.webContents.mainFrame)
    expect(await call('servers')).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403 } })
    ipcRenderer.senderFrame = null
    const other = new FakeBrowserWindow({})
    await other.loadFile(PAGE)
    ipcRenderer.senderWindow = other
    expect(await call('servers')).toMatchObject({ ok: false, error: { status: 403 } })
    expect(api.calls).toEqual([])
  })

  it('can be removed again', async () => {
    const { off } = await wired()
    off()
    expect(fake.handlers.size).toBe(0)
  })

  it('core events are forwarded on the one event channel', async () => {
    const api = await worldApi()
    const sent: ApiEvent[] = []
    const off = forwardEvents(api, (ev) => sent.push(ev))
    api.emit({ type: 'config.reloaded', data: { servers: ['x'] } })
    off()
    api.emit({ type: 'servers.changed', data: { servers: ['x'] } })
    expect(sent).toEqual([{ type: 'config.reloaded', data: { servers: ['x'] } }])
  })
})

describe('preload bridge', () => {
  it('exposes only invoke, onEvent and the desktop settings as window.toolgate, never ipcRenderer', async () => {
    const bridge = await loadPreload()
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'onEvent', 'settings'])
    expect(Object.keys(bridge.settings!).sort()).toEqual(['getStartAtLogin', 'setStartAtLogin'])
    expect(Object.values(bridge)).not.toContain(ipcRenderer)
  })

  it('rejects operations outside the whitelist without touching IPC', async () => {
    const bridge = await loadPreload()
    await expect(bridge.invoke('openDevTools' as never)).rejects.toThrow('unknown Toolgate operation')
    expect(ipcRenderer.invoke).not.toHaveBeenCalled()
  })

  it('renderer → preload → main → core round trip for every operation', async () => {
    const { api } = await wired()
    const client = new IpcApi(await loadPreload())
    expect((await client.servers()).servers.map((s) => s.name)).toEqual(['gh', 'files', 'legacy', 'sketchy'])
    expect((await client.tools('gh')).tools.map((t) => t.tool)).toContain('rotate_keys')
    expect((await client.info()).config_path).toBe(api.world.configPath)
    expect((await client.status()).servers.total).toBe(4)
    expect((await client.stats()).retrieve_calls).toBe(0)
    expect(JSON.parse(await client.search({ query: 'support tickets', include_disabled: true })).disabled.map((d: { name: string }) => d.name)).toContain(
      'legacy:search_tickets',
    )
    await client.serverAction('legacy', 'approve')
    await client.toolAction('gh', 'list_repos', 'disable')
    await client.approveAll('gh')
    const refused = await client.toolAction('gh', 'delete_repo', 'enable').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ApiError)
    expect(refused).toMatchObject({ status: 409 })
    expect(api.calls.filter((c) => /Action|approveAll/.test(c))).toEqual([
      'serverAction legacy approve',
      'toolAction gh list_repos disable',
      'approveAll gh',
      'toolAction gh delete_repo enable',
    ])
    // the renderer gets the core's own error: code, message and status
    const direct = (await api.service.toolAction('gh', 'delete_repo', 'enable').catch((e: unknown) => e)) as ApiError
    expect(direct).toBeInstanceOf(ApiError)
    expect(refused).toMatchObject({ code: direct.code, message: direct.message, status: direct.status })
    expect(api.world.catalog.entry('gh:rotate_keys')!.status).toBe('callable')
    expect(api.world.catalog.entry('gh:list_repos')!.status).toBe('disabled_by_user')
    expect(api.world.catalog.entry('legacy:close_ticket')!.status).toBe('callable')
  })

  it('the launch_hash of a server approval crosses IPC: a stale one is refused (409) and approves nothing', async () => {
    const { api } = await wired()
    const client = new IpcApi(await loadPreload())
    const reviewed = (await client.server('sketchy')).server.launch_hash
    api.world.writeConfig({
      ...WORLD_CONFIG,
      mcpServers: { ...(WORLD_CONFIG.mcpServers as Record<string, object>), sketchy: { command: 'node', args: ['sketchy.js', '--other'] } },
    })
    const stale = await client.serverAction('sketchy', 'approve', { hash: reviewed }).catch((e: unknown) => e)
    expect(stale).toMatchObject({ status: 409, code: 'launch_changed' })
    expect(api.world.catalog.quarantineOf(api.world.catalog.serverConfig('sketchy')!)).not.toBeNull()
    const bad = await client.serverAction('sketchy', 'approve', { hash: 7 } as never).catch((e: unknown) => e)
    expect(bad).toMatchObject({ status: 400 })
    await client.serverAction('sketchy', 'approve', { hash: (await client.server('sketchy')).server.launch_hash })
    expect(api.world.catalog.quarantineOf(api.world.catalog.serverConfig('sketchy')!)).toBeNull()
  })

  it("the renderer's subscribe gets the core's events through main and the preload until it unsubscribes", async () => {
    const { api, win } = await wired()
    const client = new IpcApi(await loadPreload())
    const off = forwardEvents(api, (ev) => win.webContents.send(EVENT_CHANNEL, ev))
    /** Electron delivers what main sent to the renderer's listeners of that channel. */
    const deliver = () => {
      for (const [channel, ev] of win.webContents.sent.splice(0)) fake.rendererListeners.get(channel as string)?.forEach((l) => l({}, ev))
    }
    const seen: ApiEvent[] = []
    const unsubscribe = client.subscribe((e) => seen.push(e))
    api.emit({ type: 'config.reloaded', data: { servers: ['gh'] } })
    deliver()
    unsubscribe()
    api.emit({ type: 'servers.changed', data: { servers: ['gh'] } })
    deliver()
    off()
    expect(seen).toEqual([{ type: 'config.reloaded', data: { servers: ['gh'] } }])
  })

  it('events from main reach the renderer listener until it unsubscribes', async () => {
    const bridge = await loadPreload()
    const seen: ApiEvent[] = []
    const off = bridge.onEvent((e) => seen.push(e))
    const deliver = (ev: ApiEvent) => fake.rendererListeners.get(EVENT_CHANNEL)?.forEach((l) => l({}, ev))
    deliver({ type: 'servers.changed', data: { servers: ['gh'] } })
    off()
    deliver({ type: 'tools.changed', data: { servers: ['gh'] } })
    expect(seen).toEqual([{ type: 'servers.changed', data: { servers: ['gh'] } }])
  })
})
