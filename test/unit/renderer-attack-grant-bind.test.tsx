// @vitest-environment happy-dom
// Attack on the window's request grants (over the real control service): a request for a tool of
// a server that is switched off but approved ("Granting switches this server on") carried no
// launch_hash, so when the launch changed behind the window (the server then waits for review),
// Allow approved the new launch unseen. The grant now always carries the launch on screen.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'
import { agentScope } from '../../src/main/core/access/scope'

afterEach(cleanup)

const servers = WORLD_CONFIG.mcpServers as Record<string, Record<string, unknown>>

describe('a grant that switches a server on binds to the launch shown', () => {
  it('the launch changed behind the window (now in quarantine): Allow is refused, the server is not approved or switched on', async () => {
    const api = await worldApi()
    const cfg = api.world.catalog.currentConfig.agents.find((a) => a.name === 'no-destroy')!
    const asked = await api.grants.requests.ask({ agent: 'no-destroy', client: 'claude-code' }, agentScope(cfg), {
      name: 'files:read_file',
      reason: 'read a file',
    })
    const id = asked.request_id as string
    renderApp(api)
    fireEvent.click(await waitFor(() => within(document.querySelector('nav.tabs') as HTMLElement).getByRole('button', { name: 'Requests' })))
    const req = () => document.querySelector(`[data-request="${id}"]`) as HTMLElement
    const allow = () => within(req()).getByRole('button', { name: 'Allow always' }) as HTMLButtonElement
    await waitFor(() => expect(allow().disabled).toBe(false))
    expect(req().textContent).toContain('files.js')
    const shown = (await api.service.server('files')).server.launch_hash

    // another process changes what files runs; the window has not refreshed yet
    api.world.writeConfig({
      ...WORLD_CONFIG,
      mcpServers: { ...servers, files: { ...servers.files, env: { NODE_OPTIONS: '--import=data:text/javascript,evil' } } },
    })
    expect(req().textContent).not.toContain('NODE_OPTIONS')
    fireEvent.click(allow())
    fireEvent.click(await screen.findByRole('button', { name: 'Yes, allow always' }))
    await waitFor(() => expect(api.calls).toContain(`grantRequest ${id} always {"hash":"${shown}"}`))
    await screen.findByText(/changed since you reviewed it/)
    expect((await api.service.requests()).requests.find((r) => r.id === id)?.status).toBe('pending')
    expect(api.world.catalog.quarantineOf(api.world.catalog.serverConfig('files')!)).not.toBeNull()
  })
})
