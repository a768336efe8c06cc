// @vitest-environment happy-dom
// What the user reviews is what runs (issues 11 and 15), in the window over the real control
// service: approving a server and granting a request that approves one send the launch_hash of the
// launch on screen. When the config changed behind the window (an agent's update, another process),
// the core refuses, the window says so and shows the new launch; nothing was approved unseen.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi, type WorldApi } from '../helpers/world-api'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement
const hashOf = async (api: WorldApi, name: string) => (await api.service.server(name)).server.launch_hash
const servers = WORLD_CONFIG.mcpServers as Record<string, Record<string, unknown>>

/** The config changes under the window: sketchy now runs something else (an env value the user never saw). */
function swapLaunch(api: WorldApi): void {
  api.world.writeConfig({
    ...WORLD_CONFIG,
    mcpServers: { ...servers, sketchy: { ...servers.sketchy, env: { NODE_OPTIONS: '--import=data:text/javascript,evil' } } },
  })
}

describe('the window binds approvals to the launch it shows', () => {
  it('Approve server sends the shown launch_hash; a launch changed meanwhile is refused, shown, and approved only after a new look', async () => {
    const api = await worldApi()
    renderApp(api)
    await waitFor(() => expect(card('sketchy')).toBeTruthy())
    const shown = await hashOf(api, 'sketchy')
    const approve = within(card('sketchy')).getByRole('button', { name: 'Approve server' })

    swapLaunch(api) // before the window refreshed: the card still shows the old launch
    expect(card('sketchy').textContent).not.toContain('NODE_OPTIONS')
    fireEvent.click(approve)
    await waitFor(() => expect(api.calls).toContain(`serverAction sketchy approve {"hash":"${shown}"}`))
    const alert = await screen.findByText(/changed since you reviewed it/)
    expect(alert.closest('[role="alert"]')).toBeTruthy()
    expect(api.world.catalog.quarantineOf(api.world.catalog.serverConfig('sketchy')!)).not.toBeNull()
    // the review is refreshed: the card shows the launch that would run now
    await waitFor(() => expect(card('sketchy').textContent).toContain('NODE_OPTIONS'))

    const now = await hashOf(api, 'sketchy')
    expect(now).not.toBe(shown)
    fireEvent.click(within(card('sketchy')).getByRole('button', { name: 'Approve server' }))
    const blind = screen.queryByRole('dialog')
    if (blind) fireEvent.click(within(blind).getByRole('button', { name: 'Approve without inspecting' }))
    await waitFor(() => expect(api.calls).toContain(`serverAction sketchy approve {"hash":"${now}"}`))
    await waitFor(() => expect(card('sketchy').getAttribute('data-state')).not.toBe('quarantined'))
  })

  it('a request grant that approves a quarantined server shows its full launch and sends its launch_hash; a stale one is refused', async () => {
    const api = await worldApi()
    const asked = await api.grants.requests.ask({ agent: 'no-destroy', client: 'claude-code' }, api.world.core.scopeForAgent('no-destroy'), {
      name: 'sketchy:list_notes',
      reason: 'read my notes',
    })
    const id = asked.request_id as string
    renderApp(api)
    fireEvent.click(await waitFor(() => within(document.querySelector('nav.tabs') as HTMLElement).getByRole('button', { name: 'Requests' })))
    const req = () => document.querySelector(`[data-request="${id}"]`) as HTMLElement
    const allow = () => within(req()).getByRole('button', { name: 'Allow always' }) as HTMLButtonElement
    await waitFor(() => expect(allow().disabled).toBe(false))
    expect(req().textContent).toContain('sketchy.js') // the launch a grant approves
    const shown = await hashOf(api, 'sketchy')

    swapLaunch(api)
    fireEvent.click(allow())
    // Allow always is a deliberate second step
    fireEvent.click(await screen.findByRole('button', { name: 'Yes, allow always' }))
    await waitFor(() => expect(api.calls).toContain(`grantRequest ${id} always {"hash":"${shown}"}`))
    await screen.findByText(/changed since you reviewed it/)
    expect((await api.service.requests()).requests.find((r) => r.id === id)?.status).toBe('pending')
    expect(api.world.catalog.quarantineOf(api.world.catalog.serverConfig('sketchy')!)).not.toBeNull()
    // the review now shows the new launch, env included
    await waitFor(() => expect(req().textContent).toContain('NODE_OPTIONS'))

    const now = await hashOf(api, 'sketchy')
    fireEvent.click(allow())
    fireEvent.click(await screen.findByRole('button', { name: 'Yes, allow always' }))
    await waitFor(() => expect(api.calls).toContain(`grantRequest ${id} always {"hash":"${now}"}`))
    await waitFor(() => expect(req().getAttribute('data-status')).toBe('granted'))
    expect(api.world.catalog.quarantineOf(api.world.catalog.serverConfig('sketchy')!)).toBeNull()
  })
})
