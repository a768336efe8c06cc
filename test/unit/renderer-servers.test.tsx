// @vitest-environment happy-dom
// The server list against the real control service over a real catalog (buildWorld: every status).
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { WorldApi, emptyApi, worldApi } from '../helpers/world-api'
import { WORLD_CONFIG, makeFixture } from '../helpers/catalog-fixture'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement
const row = (id: string) => document.querySelector(`[data-tool="${id}"]`) as HTMLElement
const count = (server: string, status: string) => card(server).querySelector(`[data-count="${status}"]`)?.textContent

async function loaded() {
  await waitFor(() => expect(card('gh')).toBeTruthy())
}

/** The world, plus a server the operator holds in quarantine in mcp_config.json. */
async function worldWithHold() {
  const api = await worldApi()
  const servers = WORLD_CONFIG.mcpServers as Record<string, unknown>
  api.world.writeConfig({ ...WORLD_CONFIG, mcpServers: { ...servers, held: { command: 'node', args: ['held.js'], quarantined: true } } })
  return api
}

describe('server list', () => {
  it('marks each server with its name and state (docs/contract.md §6)', async () => {
    renderApp(await worldApi())
    await loaded()
    const marks = [...document.querySelectorAll('[data-server]')].map((e) => [e.getAttribute('data-server'), e.getAttribute('data-state')])
    expect(marks).toEqual([
      ['gh', 'stopped'],
      ['files', 'disabled'],
      ['legacy', 'quarantined'],
      ['sketchy', 'quarantined'],
    ])
  })

  it('names the MCP protocol version a server agreed to, once it connected', async () => {
    const api = await worldApi()
    renderApp(api)
    await loaded()
    expect(card('gh').querySelector('[data-protocol-version]')).toBeNull() // never connected: nothing to say
    api.manager.connections.set('gh', { state: 'connected', lastError: null, attempt: 0, protocolVersion: '2026-07-28' })
    await waitFor(() => expect(card('gh').querySelector('[data-protocol-version="2026-07-28"]')?.textContent).toBe('MCP 2026-07-28 (stateless)'))
    api.manager.connections.set('gh', { state: 'connected', lastError: null, attempt: 0, protocolVersion: '2025-11-25' })
    await waitFor(() => expect(card('gh').querySelector('[data-protocol-version]')?.textContent).toBe('MCP 2025-11-25'))
  })

  it('shows per-status counts as bare numbers and hides zero counts', async () => {
    renderApp(await worldApi())
    await loaded()
    expect(count('gh', 'callable')).toBe('3')
    expect(count('gh', 'disabled_by_config')).toBe('1')
    expect(count('gh', 'disabled_by_user')).toBe('1')
    expect(count('gh', 'pending_approval')).toBe('1')
    expect(count('gh', 'server_quarantined')).toBeUndefined()
    expect(count('legacy', 'server_quarantined')).toBe('2')
    expect(count('legacy', 'callable')).toBeUndefined()
    expect(count('files', 'server_disabled')).toBe('2')
    expect(count('files', 'callable')).toBeUndefined()
  })

  it('one status, one badge: each state is said once per card, a user-disabled tool has its badge', async () => {
    const { store } = renderApp(await worldWithHold())
    await loaded()
    for (const name of ['gh', 'legacy', 'held', 'files', 'sketchy']) store.getState().setExpanded(name, true)
    await waitFor(() => expect(card('legacy').querySelector('[data-tool]')).toBeTruthy())
    await waitFor(() => expect(card('files').querySelector('[data-tool]')).toBeTruthy())
    const badges = (name: string) => [...card(name).querySelectorAll('.server-meta .badge')].map((b) => b.textContent)
    const counts = (name: string) => [...card(name).querySelectorAll('.count')].map((c) => c.textContent)
    // (the config key "quarantined" in an explanation is not the state said again)
    const times = (name: string, word: RegExp) =>
      (
        card(name)
          .textContent?.replace(/"quarantined"/g, '')
          .match(word) ?? []
      ).length
    // the counts say what is locked or waits: no badge repeats them
    expect(badges('gh')).toEqual([])
    expect(counts('gh')).toEqual(['3 callable', '1 locked by config', '1 disabled by you', '1 pending approval'])
    // the state pill says quarantined / off; the counts and the tool rows do not say it again
    expect(badges('legacy')).toEqual([])
    expect(counts('legacy')).toEqual(['2 tools'])
    expect(times('legacy', /quarantined/g)).toBe(1)
    expect(card('legacy').querySelectorAll('[data-tool] .badge').length).toBe(2) // the call variant of each tool, no status
    expect(badges('held')).toEqual([])
    expect(times('held', /quarantined/g)).toBe(1)
    expect(badges('files')).toEqual([])
    expect(counts('files')).toEqual(['2 tools'])
    expect(card('files').textContent).not.toMatch(/server off|disabled/)
    // a user-disabled tool says so on its row
    expect([...row('gh:archive_repo').querySelectorAll('.badge')].map((b) => b.textContent)).toContain('disabled by you')
  })

  it('offers only the server actions that fit', async () => {
    renderApp(await worldApi())
    await loaded()
    const names = (server: string) =>
      within(card(server))
        .queryAllByRole('button')
        .map((b) => b.textContent)
    // ▾ (a clock icon and ▾): the same act for a time (its menu)
    expect(names('sketchy')).toEqual(['sketchy', 'Inspect', 'Approve server', 'For a time▾', 'Disable server', 'Edit server', 'Remove server'])
    // gh is stopped: Restart; rotate_keys: Reject or Approve; archive_repo: Re-enable; the three callable tools: Disable; delete_repo (config lock): nothing
    expect(names('gh')).toEqual([
      'gh',
      'Approve all',
      'Restart server',
      'Disable server',
      'Quarantine server',
      'Edit server',
      'Remove server',
      'Reject',
      'Approve',
      'For a time▾',
      'Re-enable',
      'For a time▾',
      'Disable',
      'Disable',
      'Disable',
    ])
    expect(within(row('gh:delete_repo')).queryByRole('button')).toBeNull()
    expect(names('files')).toEqual(['files', 'Enable server', 'For a time▾', 'Quarantine server', 'Edit server', 'Remove server'])
  })

  it('an operator hold (quarantined: true in the config) gets an explanation instead of Approve server', async () => {
    renderApp(await worldWithHold())
    await waitFor(() => expect(card('held')).toBeTruthy())
    const held = within(card('held'))
    expect(held.queryByRole('button', { name: 'Approve server' })).toBeNull()
    expect(held.getByText(/operator policy/)).toBeTruthy()
    expect(card('held').textContent).toContain('mcp_config.json')
  })

  it('Approve server approves, and the card updates live', async () => {
    const { api } = renderApp(await worldApi())
    await loaded()
    fireEvent.click(within(card('legacy')).getByRole('button', { name: 'Approve server' }))
    await waitFor(() => expect(card('legacy').getAttribute('data-state')).not.toBe('quarantined'))
    // bound to the launch the card showed (its launch_hash)
    expect(api.calls).toContain(`serverAction legacy approve {"hash":"${(await api.service.server('legacy')).server.launch_hash}"}`)
    // its tools were approved before the user put it back into quarantine: callable again
    expect(count('legacy', 'callable')).toBe('2')
    expect(await screen.findByRole('status')).toBeTruthy()
  })

  it('Inspect opens the quarantined server and lists its tools as text, without descriptions or actions', async () => {
    const { api } = renderApp(await worldApi())
    await loaded()
    fireEvent.click(within(card('sketchy')).getByRole('button', { name: 'Inspect' }))
    // Inspect runs the program: first the user sees what runs and confirms
    const dialog = within(card('sketchy')).getByRole('dialog', { name: 'Inspect sketchy?' })
    expect(dialog.textContent).toMatch(/runs this program on your computer/)
    expect(dialog.textContent).toContain('sketchy.js')
    expect(api.calls.filter((c) => c.startsWith('serverAction sketchy inspect'))).toEqual([])
    fireEvent.click(within(dialog).getByRole('button', { name: 'Run and inspect' }))
    // it runs the launch the dialog showed, bound by its launch_hash
    const shown = (await api.service.server('sketchy')).server.launch_hash
    await waitFor(() => expect(api.calls).toContain(`serverAction sketchy inspect {"hash":"${shown}"}`))
    await waitFor(() => expect(row('sketchy:export_secrets')).toBeTruthy())
    expect(row('sketchy:export_secrets').getAttribute('data-status')).toBe('server_quarantined')
    expect(within(row('sketchy:export_secrets')).queryByRole('button')).toBeNull()
  })

  it('Inspect, then Cancel: nothing runs', async () => {
    const { api } = renderApp(await worldApi())
    await loaded()
    fireEvent.click(within(card('sketchy')).getByRole('button', { name: 'Inspect' }))
    fireEvent.click(within(card('sketchy')).getByRole('button', { name: 'Cancel' }))
    expect(within(card('sketchy')).queryByRole('dialog')).toBeNull()
    expect(api.calls.filter((c) => c.startsWith('serverAction sketchy inspect'))).toEqual([])
  })

  it('the card shows the full launch (cwd, env, command, every argument), control characters escaped', async () => {
    const api = await worldApi()
    const servers = WORLD_CONFIG.mcpServers as Record<string, unknown>
    const evil = {
      command: 'node',
      args: ['-e', 'x\u001b]52;c;ZXZpbA==\u0007'],
      cwd: '/w',
      env: { NODE_OPTIONS: '--import=data:x', API_TOKEN: 'sekret-value-1' },
    }
    api.world.writeConfig({ ...WORLD_CONFIG, mcpServers: { ...servers, evil } })
    renderApp(api)
    await loaded()
    await waitFor(() => expect(card('evil')).toBeTruthy())
    const line = card('evil').querySelector('[data-launch]')
    expect(line?.textContent).toContain('cd /w && NODE_OPTIONS=--import=data:x API_TOKEN=*** node -e x\\u001b]52;c;ZXZpbA==\\u0007')
    expect(line?.textContent).not.toContain('\u001b')
    expect(line?.textContent).not.toContain('sekret')
  })

  it('Enable server / Disable server', async () => {
    const { api } = renderApp(await worldApi())
    await loaded()
    fireEvent.click(within(card('files')).getByRole('button', { name: 'Enable server' }))
    await waitFor(() => expect(card('files').getAttribute('data-state')).not.toBe('disabled'))
    expect(count('files', 'server_disabled')).toBeUndefined()
    fireEvent.click(within(card('files')).getByRole('button', { name: 'Disable server' }))
    await waitFor(() => expect(card('files').getAttribute('data-state')).toBe('disabled'))
    expect(api.calls.filter((c) => c.startsWith('serverAction files'))).toEqual(['serverAction files enable', 'serverAction files disable'])
  })

  it('a failed action shows a banner with the error message', async () => {
    const api = await worldApi()
    renderApp(api)
    await loaded()
    // what the core answers when the operator put the server on hold meanwhile
    const held = await worldWithHold()
    const refusal = await held.service.serverAction('held', 'approve').catch((e: unknown) => e)
    api.failNext('serverAction', refusal as never)
    fireEvent.click(within(card('sketchy')).getByRole('button', { name: 'Approve server' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toMatch(/held/)
    expect(alert.textContent).toMatch(/mcp_config\.json|config/)
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss' }))
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull())
  })

  it('shows config_error and state_warning from info as banners', async () => {
    const api = await worldApi()
    // the operator saves a config that does not load: the core keeps the last good one and says why
    api.editConfigFile(
      JSON.stringify({
        mcpServers: [
          { name: 'a', command: 'node' },
          { name: 'b', url: 'not a url' },
        ],
      }),
    )
    renderApp(api)
    await loaded()
    const alerts = screen.getAllByRole('alert').map((a) => a.textContent)
    expect(alerts.some((t) => t?.includes('mcpServers[1].url: Invalid URL') && t.includes('last good config'))).toBe(true)
  })

  it('shows the config keys Toolgate ignores as a banner (not only in the log)', async () => {
    renderApp(await worldApi())
    await loaded()
    expect(document.querySelector('[data-banner="config-warnings"]')).toBeNull()
    cleanup()
    renderApp(new WorldApi(makeFixture({ ...WORLD_CONFIG, colour: 'blue' })))
    await waitFor(() => expect(document.querySelector('[data-banner="config-warnings"]')?.textContent).toContain('$.colour'))
    expect(document.querySelector('[data-banner="config-warnings"]')?.textContent).toContain('ignored')
  })

  it('shows the config notes with "did you mean" as a banner (a near-miss top-level key, an agent scoped to no server)', async () => {
    renderApp(await worldApi())
    await loaded()
    expect(document.querySelector('[data-banner="config-notes"]')).toBeNull()
    cleanup()
    renderApp(new WorldApi(makeFixture({ ...WORLD_CONFIG, tool_limit: 3, agents: [{ name: 'helper', servers: ['fils'] }] })))
    await waitFor(() => expect(document.querySelector('[data-banner="config-notes"]')).not.toBeNull())
    const text = document.querySelector('[data-banner="config-notes"]')?.textContent ?? ''
    expect(text).toContain('did you mean "tools_limit"?')
    expect(text).toMatch(/no server named "fils".*did you mean "files"\?/)
    // a near-miss key is said once, with its near name, not also as a bare unknown key
    expect(document.querySelector('[data-banner="config-warnings"]')).toBeNull()
  })

  it('header summary and the window title count what waits', async () => {
    renderApp(await worldApi())
    await loaded()
    const banner = screen.getByRole('banner')
    expect(banner.textContent).toContain('0 of 4 servers connected')
    expect(banner.textContent).toContain('3 tools callable')
    // sketchy waits for review, gh:rotate_keys waits for approval (legacy is the user's own hold)
    expect(banner.textContent).toContain('2 waiting for approval')
    await waitFor(() => expect(document.title).toBe('(2) Toolgate'))
  })

  it('an empty install explains where the config is and how to connect an agent', async () => {
    // a core that listens (on a free loopback port), as `serve` and the app run it
    const api = new WorldApi(makeFixture({ mcpServers: {} }, { core: { serveHttp: true, listen: '127.0.0.1:0', staticDir: null } }))
    const { url } = await api.world.core.start()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    renderApp(api)
    await screen.findByText('No MCP servers yet')
    expect(document.body.textContent).toContain(api.world.configPath)
    expect(document.body.textContent).toContain('toolgate connect claude-desktop --write')
    expect(document.body.textContent).toContain(`${url}/mcp`)
  })

  it('the connect instructions name the data dir of the snippet beside them', async () => {
    const api = emptyApi()
    renderApp(api)
    await screen.findByText('No MCP servers yet')
    const text = document.body.textContent ?? ''
    // every command shown writes the snippet of this Toolgate's (non-default) data dir
    const commands = [...text.matchAll(/toolgate connect [a-z-]+ --write[^,)]*/g)].map((m) => m[0])
    expect(commands.length).toBeGreaterThanOrEqual(3)
    for (const c of commands) expect(c).toContain(`--data-dir ${api.world.dir}`)
    expect(document.querySelector('.snippets pre')?.textContent).toContain(api.world.dir)
    expect(text).toContain(`["stdio", "--data-dir", ${JSON.stringify(api.world.dir)}]`)
    expect(document.querySelector('[data-connect-temporary]')).toBeNull()
  })

  it("a demo's connect help says its data dir goes when it exits and points to the user's own Toolgate", async () => {
    const api = new WorldApi(makeFixture({ mcpServers: {} }, { core: { temporaryDataDir: true } }))
    renderApp(api)
    await screen.findByText('No MCP servers yet')
    expect(document.querySelectorAll('[data-connect-temporary]').length).toBe(2)
    expect(document.querySelector('[data-connect-temporary]')?.textContent).toContain('deleted when it exits')
    const commands = [...(document.body.textContent ?? '').matchAll(/toolgate connect [a-z-]+ --write[^,)]*/g)].map((m) => m[0])
    for (const c of commands) expect(c).not.toContain('--data-dir')
  })

  it('a server added while the window is open appears without a reload', async () => {
    const api = emptyApi()
    renderApp(api)
    await screen.findByText('No MCP servers yet')
    api.world.writeConfig({ mcpServers: { fresh: { command: 'node', args: ['fresh.js'] } } })
    await waitFor(() => expect(card('fresh')?.getAttribute('data-state')).toBe('quarantined'))
  })
})
