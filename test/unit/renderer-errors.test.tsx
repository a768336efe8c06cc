// @vitest-environment happy-dom
// Errors and state in the window: a failing server shows its error in plain words
// within a second of the core knowing it (the event path, no reload), with the raw text behind
// "Details" and Restart server as the primary action; the header counts failing servers and what
// waits, and says what needs attention; the key page takes a pasted key. The real ControlService
// over buildWorld() and its real upstream manager.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'
import { MissingKey } from '../../src/renderer/components/MissingKey'
import { keyFromInput } from '../../src/renderer/api/key'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement
const header = () => document.querySelector('header') as HTMLElement
const ENOENT = 'spawn github-mcp ENOENT (no such command on PATH) (reconnecting, attempt 3)'

describe('a failing server', () => {
  it('shows its error in plain words within a second of the core knowing it, raw text behind Details', async () => {
    const { api } = renderApp(await worldApi())
    await waitFor(() => expect(card('gh')).toBeTruthy())
    expect(card('gh').querySelector('[data-server-error]')).toBeNull()
    const t0 = Date.now()
    api.manager.connections.set('gh', { state: 'connecting', lastError: 'spawn github-mcp ENOENT (no such command on PATH)', attempt: 3 })
    await waitFor(() => expect(card('gh').querySelector('[data-error-title]')?.textContent).toBe('The command "github-mcp" was not found.'), {
      timeout: 1000,
    })
    expect(Date.now() - t0).toBeLessThan(1000)
    const err = card('gh').querySelector('[data-server-error]') as HTMLElement
    expect(err.textContent).toContain('full path as "command"')
    expect(err.textContent).toContain('keeps retrying on its own (attempt 3)')
    const details = err.querySelector('details') as HTMLDetailsElement
    expect(details.open).toBe(false)
    expect(within(details).getByText('Details')).toBeTruthy()
    expect(details.querySelector('pre')?.textContent).toBe(ENOENT)
  })

  it('what the program printed is shown with its escape sequences and bidi controls as escapes', async () => {
    const { api } = renderApp(await worldApi())
    await waitFor(() => expect(card('gh')).toBeTruthy())
    api.manager.connections.set('gh', {
      state: 'error',
      lastError: 'process exited with code 1: \u001b[31mfatal\u001b[0m token \u202eterces during the MCP handshake (stdio)',
      attempt: 0,
    })
    await waitFor(() => expect(card('gh').querySelector('[data-server-error] pre')).toBeTruthy())
    const err = card('gh').querySelector('[data-server-error]') as HTMLElement
    expect(err.querySelector('pre')?.textContent).toBe(
      'process exited with code 1: \\u001b[31mfatal\\u001b[0m token \\u202eterces during the MCP handshake (stdio)',
    )
    expect([...err.querySelectorAll('pre .hidden-char')].map((e) => e.textContent)).toEqual(['\\u001b', '\\u001b', '\\u202e'])
    // eslint-disable-next-line no-control-regex
    expect(err.textContent).not.toMatch(/[\u001b\u202e]/)
  })

  it('offers Restart server as the primary action, and it restarts the server', async () => {
    const { api } = renderApp(await worldApi())
    await waitFor(() => expect(card('gh')).toBeTruthy())
    api.manager.connections.set('gh', {
      state: 'error',
      lastError: 'process exited with code 1: missing GITHUB_TOKEN during the MCP handshake (stdio)',
      attempt: 0,
    })
    // gh is stopped in the world: Restart server is there, but not primary until it fails
    await waitFor(() => expect(card('gh').getAttribute('data-state')).toBe('error'))
    const restart = within(card('gh')).getByRole('button', { name: 'Restart server' })
    expect(restart.className).toContain('btn--primary')
    expect(within(card('gh')).getByRole('button', { name: 'Disable server' }).className).not.toContain('btn--primary')
    expect(card('gh').textContent).toContain('It said: missing GITHUB_TOKEN')
    fireEvent.click(restart)
    await waitFor(() => expect(api.calls).toContain('serverAction gh restart'))
  })

  it('the header counts failing servers and what waits, and a click opens the failing one', async () => {
    const { api, store } = renderApp(await worldApi())
    await waitFor(() => expect(card('gh')).toBeTruthy())
    expect(header().textContent).toContain('Needs your attention:')
    expect(header().querySelector('[data-attention="failing"]')).toBeNull()
    // sketchy waits for review, gh:rotate_keys for approval
    expect(screen.getByRole('button', { name: '2 waiting for approval' })).toBeTruthy()
    expect(header().textContent).toContain('(1 server to review, 1 tool)')
    api.manager.connections.set('gh', { state: 'error', lastError: 'did not complete the MCP handshake within 30000 ms (stdio)', attempt: 0 })
    const failing = await waitFor(() => within(header()).getByRole('button', { name: '1 server failing' }))
    store.getState().setExpanded('gh', false)
    store.getState().setTab('search')
    fireEvent.click(failing)
    expect(store.getState().tab).toBe('servers')
    expect(store.getState().expanded.gh).toBe(true)
    // fixed: nothing fails any more
    api.manager.connections.set('gh', { state: 'connected', lastError: null, attempt: 0 })
    await waitFor(() => expect(header().querySelector('[data-attention="failing"]')).toBeNull())
  })

  it('says when nothing needs attention', async () => {
    const api = await worldApi()
    await api.service.approveAll('gh')
    // without the server that waits for review (the user-quarantined and the switched-off ones do not wait)
    const servers = { ...(WORLD_CONFIG.mcpServers as Record<string, unknown>) }
    delete servers.sketchy
    api.world.writeConfig({ ...WORLD_CONFIG, mcpServers: servers })
    renderApp(api)
    await waitFor(() => expect(header()?.querySelector('[data-attention="none"]')?.textContent).toBe('Nothing needs your attention'))
  })
})

describe('the key page', () => {
  it('takes the pasted key, or the whole printed URL', () => {
    const onKey = vi.fn()
    render(<MissingKey onKey={onKey} />)
    const field = screen.getByLabelText('API key')
    fireEvent.change(field, { target: { value: '  http://127.0.0.1:8719/#key=abc%2Bdef  ' } })
    fireEvent.click(screen.getByRole('button', { name: 'Use this key' }))
    expect(onKey).toHaveBeenCalledWith('abc+def')
    fireEvent.change(field, { target: { value: 'not a key' } })
    fireEvent.click(screen.getByRole('button', { name: 'Use this key' }))
    expect(onKey).toHaveBeenCalledTimes(1)
    expect(screen.getByRole('alert').textContent).toMatch(/paste the key itself, or the whole URL/)
    expect(field.getAttribute('type')).toBe('password')
  })

  it('a refused key: the page says so and still takes a new one', () => {
    const onKey = vi.fn()
    render(<MissingKey refused="The API key was not accepted." onKey={onKey} />)
    expect(screen.getByRole('heading').textContent).toBe('The API key was not accepted')
    fireEvent.change(screen.getByLabelText('API key'), { target: { value: 'k3y' } })
    fireEvent.submit(screen.getByLabelText('API key').closest('form') as HTMLFormElement)
    expect(onKey).toHaveBeenCalledWith('k3y')
  })

  it('keyFromInput', () => {
    expect(keyFromInput('abc')).toBe('abc')
    expect(keyFromInput('http://127.0.0.1:8719/#key=xyz')).toBe('xyz')
    expect(keyFromInput('#key=xyz&other=1')).toBe('xyz')
    expect(keyFromInput('http://127.0.0.1:8719/')).toBeNull()
    expect(keyFromInput('   ')).toBeNull()
  })
})
