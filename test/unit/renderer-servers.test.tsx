// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { FakeApi, sampleServers } from '../helpers/fake-api'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement
const row = (id: string) => document.querySelector(`[data-tool="${id}"]`) as HTMLElement
const count = (server: string, status: string) => card(server).querySelector(`[data-count="${status}"]`)?.textContent

async function loaded() {
  await waitFor(() => expect(card('github')).toBeTruthy())
}

describe('server list', () => {
  it('marks each server with its name and state (CONTRACT §6)', async () => {
    renderApp()
    await loaded()
    const marks = [...document.querySelectorAll('[data-server]')].map((e) => [e.getAttribute('data-server'), e.getAttribute('data-state')])
    expect(marks).toEqual([
      ['github', 'connected'],
      ['shady', 'quarantined'],
      ['held', 'quarantined'],
      ['notes', 'disabled'],
    ])
  })

  it('shows per-status counts as bare numbers and hides zero counts', async () => {
    renderApp()
    await loaded()
    expect(count('github', 'callable')).toBe('1')
    expect(count('github', 'disabled_by_config')).toBe('1')
    expect(count('github', 'disabled_by_user')).toBe('1')
    expect(count('github', 'pending_approval')).toBe('2')
    expect(count('github', 'server_quarantined')).toBeUndefined()
    expect(count('shady', 'server_quarantined')).toBe('1')
    expect(count('shady', 'callable')).toBeUndefined()
    expect(card('held').querySelector('[data-count]')).toBeNull()
    expect(count('notes', 'server_disabled')).toBe('1')
  })

  it('shows lock badges: quarantined, disabled, locked by config, pending', async () => {
    renderApp()
    await loaded()
    const badges = (name: string) => [...card(name).querySelectorAll('.server-meta .badge')].map((b) => b.textContent)
    expect(badges('github')).toEqual(['locked by config', '2 pending'])
    expect(badges('shady')).toEqual(['quarantined'])
    expect(badges('held')).toEqual(['quarantined by config'])
    expect(badges('notes')).toEqual(['disabled'])
  })

  it('offers only the server actions that fit', async () => {
    renderApp()
    await loaded()
    const names = (server: string) =>
      within(card(server))
        .queryAllByRole('button')
        .map((b) => b.textContent)
    expect(names('shady')).toEqual(['shady', 'Inspect', 'Approve server', 'Disable server'])
    expect(names('github')).toEqual(['github', 'Approve all', 'Disable server', 'Quarantine server', 'Approve', 'Approve', 'Disable', 'Re-enable'])
    expect(names('notes')).toEqual(['notes', 'Enable server', 'Quarantine server'])
  })

  it('an operator hold (quarantine_source config) gets an explanation instead of Approve server', async () => {
    renderApp()
    await loaded()
    const held = within(card('held'))
    expect(held.queryByRole('button', { name: 'Approve server' })).toBeNull()
    expect(held.getByText(/operator policy/)).toBeTruthy()
    expect(card('held').textContent).toContain('mcp_config.json')
  })

  it('Approve server approves, and the card updates live', async () => {
    const { api } = renderApp()
    await loaded()
    fireEvent.click(within(card('shady')).getByRole('button', { name: 'Approve server' }))
    await waitFor(() => expect(card('shady').getAttribute('data-state')).toBe('connected'))
    expect(api.calls).toContain('serverAction shady approve')
    expect(count('shady', 'callable')).toBe('1')
    expect(await screen.findByRole('status')).toBeTruthy()
  })

  it('Inspect opens the quarantined server and lists its tools as text', async () => {
    const { api } = renderApp()
    await loaded()
    fireEvent.click(within(card('shady')).getByRole('button', { name: 'Inspect' }))
    await waitFor(() => expect(row('shady:rotate_keys')).toBeTruthy())
    expect(api.calls).toContain('serverAction shady inspect')
    expect(row('shady:rotate_keys').getAttribute('data-status')).toBe('server_quarantined')
    // untrusted description: text, never markup
    expect(row('shady:rotate_keys').textContent).toContain('<img src=x onerror=alert(1)>')
    expect(row('shady:rotate_keys').querySelector('img')).toBeNull()
    expect(within(row('shady:rotate_keys')).queryByRole('button')).toBeNull()
  })

  it('Enable server / Disable server', async () => {
    const { api } = renderApp()
    await loaded()
    fireEvent.click(within(card('notes')).getByRole('button', { name: 'Enable server' }))
    await waitFor(() => expect(card('notes').getAttribute('data-state')).toBe('connected'))
    fireEvent.click(within(card('notes')).getByRole('button', { name: 'Disable server' }))
    await waitFor(() => expect(card('notes').getAttribute('data-state')).toBe('disabled'))
    expect(api.calls.filter((c) => c.startsWith('serverAction notes'))).toEqual(['serverAction notes enable', 'serverAction notes disable'])
  })

  it('a failed action shows a banner with the error message', async () => {
    const api = new FakeApi(sampleServers())
    api.server('held').quarantine_source = 'review' // the UI offers the button; the core refuses
    renderApp(undefined, api)
    await loaded()
    api.server('held').quarantine_source = 'config'
    fireEvent.click(within(card('held')).getByRole('button', { name: 'Approve server' }))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('"held" is quarantined by the config')
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss' }))
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull())
  })

  it('shows config_error and state_warning from info as banners', async () => {
    const api = new FakeApi(sampleServers())
    api.info_.config_error = 'mcp_config.json: mcpServers[1].url: Invalid URL'
    api.info_.state_warning = 'state.json was unreadable; tools stay locked'
    renderApp(undefined, api)
    await loaded()
    const alerts = screen.getAllByRole('alert').map((a) => a.textContent)
    expect(alerts.some((t) => t?.includes('mcpServers[1].url: Invalid URL') && t.includes('last good config'))).toBe(true)
    expect(alerts.some((t) => t?.includes('state.json was unreadable'))).toBe(true)
  })

  it('header summary and the window title count what waits', async () => {
    renderApp()
    await loaded()
    const banner = screen.getByRole('banner')
    expect(banner.textContent).toContain('1 of 4 servers connected')
    expect(banner.textContent).toContain('1 tools callable')
    expect(banner.textContent).toContain('3 waiting for approval')
    await waitFor(() => expect(document.title).toBe('(3) Toolgate'))
  })

  it('an empty install explains where the config is and how to connect an agent', async () => {
    renderApp([])
    await screen.findByText('No MCP servers yet')
    expect(document.body.textContent).toContain('/home/me/.toolgate/mcp_config.json')
    expect(document.body.textContent).toContain('toolgate connect claude-desktop --write')
    expect(document.body.textContent).toContain('http://127.0.0.1:8719/mcp')
  })

  it('a server added while the window is open appears without a reload', async () => {
    const { api } = renderApp([])
    await screen.findByText('No MCP servers yet')
    api.servers_.push({ name: 'fresh', quarantined: true, tools: [] })
    api.emit({ type: 'config.reloaded', data: {} })
    await waitFor(() => expect(card('fresh')?.getAttribute('data-state')).toBe('quarantined'))
  })
})
