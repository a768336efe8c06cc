// The desktop side of confirmations, with electron mocked and the real control service
// and confirmation queue of a world behind it: a waiting call raises a notification (who, tool,
// the start of the arguments, escaped) and the tray says how many calls wait; an answer over IPC
// is recorded as given in the window, whatever the renderer claims.
import { beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', () => import('../helpers/fake-electron'))
import { fake, ipcRenderer } from '../helpers/fake-electron'
import { runApp, type StartCore } from '../../src/main/electron/app'
import { confirmationNote } from '../../src/main/electron/notify'
import type { IpcResult } from '../../src/shared/ipc'
import type { Confirmation } from '../../src/shared/confirmations'
import { worldApi, type WorldApi } from '../helpers/world-api'
import { waitFor } from '../helpers/wait'

beforeEach(() => fake.reset())

/** An agent's call of `id` waiting for the user (the user's switch on that tool is on). */
async function waitingCall(api: WorldApi, id: string, args: Record<string, unknown>) {
  const [server, tool] = id.split(':')
  await api.service.setAskBeforeCall(server, tool, true)
  const entry = api.world.catalog.entry(id)!
  const result = api.grants.confirmations.confirm({ agent: 'gh-only', client: null }, entry, entry.variant, args)
  return { c: api.grants.confirmations.list().find((x) => x.tool === id)!, result }
}

type Item = { label?: string; click?: () => void }

describe('a call waiting for the OK, on the desktop', () => {
  it('a notification names the agent, the tool and the arguments; the tray counts the waiting calls and opens the window', async () => {
    const api = await worldApi()
    const startCore = vi.fn<StartCore>(async () => ({ api, info: await api.info(), url: null, stop: async () => undefined }))
    await runApp(startCore, [], { refreshMs: 5, notifySettleMs: 5 })
    const { c, result } = await waitingCall(api, 'gh:create_issue', { title: 'Typo <b>now</b>', token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' })
    const note = await waitFor(() => fake.notifications.find((n) => n.options.title.includes('gh:create_issue')), 5000, 'the notification')
    expect(note.shown).toBe(true)
    expect(note.options.title).toBe('Toolgate: gh-only wants to run gh:create_issue')
    expect(note.options.body).toMatch(/^Arguments: \{"title":"Typo \\u\{3c\}b\\u\{3e\}now/)
    expect(note.options.body).not.toMatch(/ghp_abc|<b>/)
    expect(note.options.body).toMatch(/Open Toolgate to allow or deny \(\d+ s left\)\.$/)
    const menu = () => (fake.trays[0].menu!.template as Item[]).map((i) => i.label)
    await waitFor(() => menu().includes('1 call waits for your OK…'), 5000, 'the tray item')
    expect(fake.trays[0].tooltip).toBe('Toolgate — 1 call waits for your OK')
    // clicking the notification opens the window, where the arguments are shown in full
    fake.windows[0].hide()
    note.emit('click')
    expect(fake.windows[0].visible).toBe(true)
    await api.grants.confirmations.deny(c.id)
    expect((await result).go).toBe(false)
    await waitFor(() => !menu().some((l) => l?.includes('for your OK')), 5000, 'the tray item to go')
  })

  it('an answer from the window is recorded as given in the window (confirmation and activity), whatever the renderer sends', async () => {
    const api = await worldApi()
    // as the core wires it: the window's Api records its decisions as made in the window
    const startCore: StartCore = async () => ({
      api,
      apiFor: (origin) => api.service.as(origin),
      info: await api.info(),
      url: null,
      stop: async () => undefined,
    })
    await runApp(startCore, [], { refreshMs: 5, notifySettleMs: 5 })
    ipcRenderer.senderWindow = fake.windows[0]
    const { c, result } = await waitingCall(api, 'gh:list_repos', { owner: 'me' })
    const r = (await ipcRenderer.invoke('toolgate:allowConfirmation', c.id, 'cli')) as IpcResult<{ confirmation: Confirmation }>
    expect(r.ok).toBe(true)
    expect((await result).go).toBe(true)
    expect(api.grants.confirmations.list({ status: 'allowed' }).find((x) => x.id === c.id)?.answered_via).toBe('window')
    const { events } = await api.service.activity({ kind: 'decision' })
    expect(events.find((e) => e.kind === 'decision' && e.action === 'allow')).toMatchObject({
      agent: 'gh-only',
      server: 'gh',
      tool: 'list_repos',
      by: 'user',
      via: 'window',
    })
    const again = (await ipcRenderer.invoke('toolgate:denyConfirmation', c.id)) as IpcResult
    expect(again).toMatchObject({ ok: false, error: { code: 'confirmation_answered', status: 409 } })
  })
})

describe('confirmationNote', () => {
  it('escapes what a notification server could read as markup and caps the arguments', () => {
    const c = {
      id: 'c_1',
      agent: null,
      client: 'evil <a href=x>client</a>',
      tool: 'files:write_file',
      server: 'files',
      call_with: 'call_tool_write',
      variant: 'write',
      args_hmac: 'a'.repeat(64),
      args_text: `{"text":"${'y'.repeat(500)}"}`,
      args_preview: `{"text":"${'y'.repeat(150)}…`,
      args_bytes: 512,
      args_truncated: false,
      required_by: ['config'],
      status: 'pending',
      created_at: new Date(0).toISOString(),
      expires_at: new Date(30_000).toISOString(),
    } satisfies Confirmation
    const n = confirmationNote(c, 0)
    expect(n.title).toBe('Toolgate: a local client (evil \\u{3c}a href=x\\u{3e}client\\u{3c}/a\\u{3e}) wants to run files:write_file')
    expect(n.body.length).toBeLessThan(260)
    expect(n.body).toMatch(/…/)
    expect(n.body).toMatch(/\(30 s left\)\.$/)
  })
})
