import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', () => import('../helpers/fake-electron'))
import { fake } from '../helpers/fake-electron'
import { buildTrayMenu, TrayController, tooltipFor } from '../../src/main/electron/tray'
import { summarizeServers as summarize } from '../../src/shared/summary'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'
import { worldApi } from '../helpers/world-api'

type Item = { label?: string; type?: string; enabled?: boolean; click?: () => void; submenu?: Item[] }

/** The servers of buildWorld() from the real control service, plus an operator hold ("held"). */
async function world() {
  const api = await worldApi()
  const servers = WORLD_CONFIG.mcpServers as Record<string, unknown>
  api.world.writeConfig({ ...WORLD_CONFIG, mcpServers: { ...servers, held: { command: 'node', args: ['held.js'], quarantined: true } } })
  const list = (await api.servers()).servers
  return { servers: list, summary: summarize(list) }
}

const handlers = (startAtLogin = false) => ({
  open: vi.fn(),
  quit: vi.fn(),
  setServerEnabled: vi.fn(),
  signIn: vi.fn(),
  startAtLogin: vi.fn(() => startAtLogin),
  setStartAtLogin: vi.fn(),
})
const labels = (items: Item[]) => items.map((i) => (i.type === 'separator' ? '---' : i.label))

beforeEach(() => fake.reset())

describe('tray menu', () => {
  it('shows the overall state, what waits, one entry per server, Open and Quit', async () => {
    const { servers, summary } = await world()
    const items = buildTrayMenu(servers, summary, handlers()) as Item[]
    expect(labels(items)).toEqual([
      // gh is stopped and on demand (the default): it starts at its first use, it is not a problem
      '0 of 5 servers connected, 1 start on first use',
      '3 tools callable',
      '2 waiting for approval…',
      '---',
      'gh — stopped (starts on first use) · 1 waiting',
      'files — off',
      'legacy — quarantined',
      'sketchy — quarantined',
      'held — quarantined',
      '---',
      'Start at login',
      'Open Toolgate',
      'Quit Toolgate',
    ])
    expect(items[0].enabled).toBe(false)
    expect(items[1].enabled).toBe(false)
  })

  it('per-server submenus offer Enable or Disable and call the core', async () => {
    const { servers, summary } = await world()
    const h = handlers()
    const items = buildTrayMenu(servers, summary, h) as Item[]
    const sub = (name: string) => items.find((i) => i.label?.startsWith(`${name} —`))!.submenu!
    expect(labels(sub('gh'))).toEqual(['3 tools callable', 'Review 1 waiting tool…', '---', 'Disable'])
    expect(labels(sub('sketchy'))).toEqual(['0 tools callable', 'Review in Toolgate…', '---', 'Disable'])
    expect(labels(sub('legacy'))).toEqual(['0 tools callable', 'Review in Toolgate…', '---', 'Disable'])
    expect(labels(sub('held'))).toEqual(['0 tools callable', 'Held in quarantine by the config', '---', 'Disable'])
    expect(sub('held')[1].enabled).toBe(false)
    expect(labels(sub('files'))).toEqual(['0 tools callable', '---', 'Enable'])
    sub('gh').find((i) => i.label === 'Disable')!.click!()
    sub('files').find((i) => i.label === 'Enable')!.click!()
    expect(h.setServerEnabled.mock.calls).toEqual([
      ['gh', false],
      ['files', true],
    ])
  })

  it('a server that needs sign-in: "1 server needs sign-in…" opens the window, its submenu offers Sign in…, the tooltip says so', async () => {
    const { servers } = await world()
    const withSignIn = servers.map((s) =>
      s.name === 'gh' ? { ...s, state: 'needs_auth' as const, starts_on_demand: undefined, auth: { status: 'needs_sign_in' as const } } : s,
    )
    const summary = summarize(withSignIn)
    expect(summary.needsSignIn).toEqual(['gh'])
    const h = handlers()
    const items = buildTrayMenu(withSignIn, summary, h) as Item[]
    expect(labels(items).slice(0, 5)).toEqual(['0 of 5 servers connected', '3 tools callable', '2 waiting for approval…', '1 server needs sign-in…', '---'])
    items.find((i) => i.label === '1 server needs sign-in…')!.click!()
    expect(h.open).toHaveBeenCalledTimes(1)
    const gh = items.find((i) => i.label?.startsWith('gh —'))!
    expect(gh.label).toMatch(/^gh — needs sign-in/)
    gh.submenu!.find((i) => i.label === 'Sign in…')!.click!()
    expect(h.signIn.mock.calls).toEqual([['gh']])
    expect(tooltipFor(summary)).toBe('Toolgate — 2 waiting for approval, 1 server needs sign-in')
    // servers that are fine offer no sign-in
    const plain = buildTrayMenu(servers, summarize(servers), handlers()) as Item[]
    expect(plain.flatMap((i) => [i, ...(i.submenu ?? [])]).some((i) => /sign-in|Sign in/.test(i.label ?? ''))).toBe(false)
  })

  it('a stopped on-demand server is not a problem: no failing count, no attention, plain words', async () => {
    const { servers } = await world()
    // gh: approved, nothing waits, stopped until its first use
    const calm = servers.map((s) => (s.name === 'gh' ? { ...s, counts: { callable: 3 } } : s)).filter((s) => s.name === 'gh' || !s.enabled)
    const summary = summarize(calm)
    expect(summary).toMatchObject({ failing: [], error: 0, waiting: 0, needsSignIn: [], onDemand: 1 })
    expect(tooltipFor(summary)).not.toMatch(/fail|error|attention|waiting/i)
    const items = buildTrayMenu(calm, summary, handlers()) as Item[]
    expect(labels(items)[0]).toBe('0 of 2 servers connected, 1 start on first use')
    expect(labels(items)).toContain('gh — stopped (starts on first use)')
    // with lifecycle "always", a stopped server is just stopped (nothing starts it by itself)
    const always = calm.map((s) => (s.name === 'gh' ? { ...s, lifecycle: 'always' as const, starts_on_demand: undefined } : s))
    const a = buildTrayMenu(always, summarize(always), handlers()) as Item[]
    expect(labels(a)[0]).toBe('0 of 2 servers connected')
    expect(labels(a)).toContain('gh — stopped')
  })

  it('Open Toolgate, the waiting line and Quit call their handlers', async () => {
    const { servers, summary } = await world()
    const h = handlers()
    const items = buildTrayMenu(servers, summary, h) as Item[]
    items.find((i) => i.label === 'Open Toolgate')!.click!()
    items.find((i) => i.label === '2 waiting for approval…')!.click!()
    items.find((i) => i.label === 'Quit Toolgate')!.click!()
    expect(h.open).toHaveBeenCalledTimes(2)
    expect(h.quit).toHaveBeenCalledTimes(1)
  })

  it('with nothing configured or waiting it says so', () => {
    const items = buildTrayMenu([], summarize([]), handlers()) as Item[]
    expect(labels(items)).toEqual([
      '0 of 0 servers connected',
      '0 tools callable',
      'Nothing waiting for approval',
      '---',
      'No servers configured yet',
      '---',
      'Start at login',
      'Open Toolgate',
      'Quit Toolgate',
    ])
  })

  it('the icon and tooltip change while something waits', async () => {
    const { servers, summary } = await world()
    const t = new TrayController({ normal: '/r/tray.png', attention: '/r/tray-attention.png' }, handlers())
    const tray = fake.trays[0]
    expect(tray.image.path).toBe('/r/tray.png')
    t.update(servers, summary)
    expect(tray.image.path).toBe('/r/tray-attention.png')
    expect(tray.tooltip).toBe('Toolgate — 2 waiting for approval')
    expect(labels(tray.menu!.template as Item[])).toContain('2 waiting for approval…')
    const files = servers.filter((s) => s.name === 'files')
    const calm = summarize(files)
    t.update(files, calm)
    expect(tray.image.path).toBe('/r/tray.png')
    expect(tray.tooltip).toBe(tooltipFor(calm))
    expect(tray.tooltip).toBe('Toolgate — 0/1 servers, 0 tools')
  })

  it('a click on the tray icon opens the window', () => {
    const h = handlers()
    new TrayController({ normal: 'a', attention: 'b' }, h)
    fake.trays[0].emit('click')
    expect(h.open).toHaveBeenCalled()
  })
})

describe("servers' questions in the tray", () => {
  it('count as needing attention: a line that opens the window, the tooltip, the attention icon', async () => {
    const { servers, summary } = await world()
    const h = handlers()
    const items = buildTrayMenu(servers, summary, h, 0, 0, 2) as Item[]
    const line = items.find((i) => i.label === "2 servers' questions wait for your answer…")
    expect(line).toBeDefined()
    line?.click?.()
    expect(h.open).toHaveBeenCalled()
    expect(tooltipFor(summarize([]), 0, 0, 1)).toBe("Toolgate — 1 server's question waits for your answer")
    expect(tooltipFor(summarize([]), 0, 1, 1)).toBe("Toolgate — 1 call waits for your OK, 1 server's question waits")
    const tray = new TrayController({ normal: '/r/tray.png', attention: '/r/tray-attention.png' }, handlers())
    expect(fake.trays[0].image.path).toBe('/r/tray.png')
    tray.update([], summarize([]), 0, 0, 1)
    expect(fake.trays[0].image.path).toBe('/r/tray-attention.png')
    expect(fake.trays[0].tooltip).toBe("Toolgate — 1 server's question waits for your answer")
  })
})
