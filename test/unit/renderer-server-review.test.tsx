// @vitest-environment happy-dom
// Reviewing a quarantined server: Inspect is the primary first step until the server's
// tools have been seen; approving blind stays possible behind a confirmation that says the first
// tool list will be trusted. The real ControlService over buildWorld() (sketchy: inspected;
// fresh: never inspected).
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement
const button = (server: string, name: string) => within(card(server)).getByRole('button', { name })
const isPrimary = (b: HTMLElement) => b.className.includes('btn--primary')

async function withFresh() {
  const api = await worldApi()
  const servers = WORLD_CONFIG.mcpServers as Record<string, unknown>
  // never inspected: nobody has seen its tools
  api.world.writeConfig({ ...WORLD_CONFIG, mcpServers: { ...servers, fresh: { command: 'node', args: ['fresh.js'] } } })
  const view = renderApp(api)
  await waitFor(() => expect(card('fresh')).toBeTruthy())
  return view
}

describe('reviewing a quarantined server', () => {
  it('before its tools are seen, Inspect is primary and Approve server is not', async () => {
    await withFresh()
    expect(isPrimary(button('fresh', 'Inspect'))).toBe(true)
    expect(isPrimary(button('fresh', 'Approve server'))).toBe(false)
    // sketchy was inspected: approving what was seen is the primary step now
    expect(isPrimary(button('sketchy', 'Approve server'))).toBe(true)
    expect(isPrimary(button('sketchy', 'Inspect'))).toBe(false)
  })

  it('approving blind asks first and says the first tool list will be trusted; Cancel approves nothing', async () => {
    const { api } = await withFresh()
    const hashOf = { fresh: (await api.service.server('fresh')).server.launch_hash }
    fireEvent.click(button('fresh', 'Approve server'))
    const dialog = screen.getByRole('dialog', { name: 'Approve fresh without inspecting it?' })
    expect(dialog.textContent).toMatch(/trust the first tool list it gives/)
    expect(dialog.textContent).toMatch(/callable by agents at once, without a review/)
    expect(document.activeElement?.textContent).toBe('Cancel') // the safe choice has the focus
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(api.calls.filter((c) => c.startsWith('serverAction fresh'))).toEqual([])
    fireEvent.click(button('fresh', 'Approve server'))
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Approve without inspecting' }))
    await waitFor(() => expect(api.calls).toContain(`serverAction fresh approve {"hash":"${hashOf.fresh}"}`))
    await waitFor(() => expect(card('fresh').getAttribute('data-state')).not.toBe('quarantined'))
  })

  it('approving what Inspect showed needs no question', async () => {
    const { api } = await withFresh()
    const shown = (await api.service.server('sketchy')).server.launch_hash
    fireEvent.click(button('sketchy', 'Approve server'))
    expect(screen.queryByRole('dialog')).toBeNull()
    await waitFor(() => expect(api.calls).toContain(`serverAction sketchy approve {"hash":"${shown}"}`))
  })

  it('Disable server and Quarantine server offer Undo in the toast', async () => {
    const { api } = renderApp(await worldApi())
    await waitFor(() => expect(card('gh')).toBeTruthy())
    const toast = () => document.querySelector('.toast') as HTMLElement | null
    fireEvent.click(button('gh', 'Disable server'))
    await waitFor(() => expect(toast()?.textContent).toMatch(/Disabled server gh/))
    expect(card('gh').getAttribute('data-state')).toBe('disabled')
    fireEvent.click(within(toast() as HTMLElement).getByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(card('gh').getAttribute('data-state')).not.toBe('disabled'))
    expect(api.calls.filter((c) => c.startsWith('serverAction gh'))).toEqual(['serverAction gh disable', 'serverAction gh enable'])
    await waitFor(() => expect(toast()?.textContent).toMatch(/Enabled server gh/))
    expect(within(toast() as HTMLElement).queryByRole('button', { name: 'Undo' })).toBeNull()

    fireEvent.click(button('gh', 'Quarantine server'))
    await waitFor(() => expect(toast()?.textContent).toMatch(/Quarantined gh/))
    expect(card('gh').getAttribute('data-state')).toBe('quarantined')
    expect(api.world.catalog.entry('gh:list_repos')?.status).toBe('server_quarantined')
    fireEvent.click(within(toast() as HTMLElement).getByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(card('gh').getAttribute('data-state')).not.toBe('quarantined'))
    // back as it was: the approved tools callable again, the pending one still pending
    expect(api.world.catalog.entry('gh:list_repos')?.status).toBe('callable')
    expect(api.world.catalog.entry('gh:rotate_keys')?.status).toBe('pending_approval')
  })

  it('an operator hold offers no approval and no primary step', async () => {
    const api = await worldApi()
    const servers = WORLD_CONFIG.mcpServers as Record<string, unknown>
    api.world.writeConfig({ ...WORLD_CONFIG, mcpServers: { ...servers, held: { command: 'node', args: ['held.js'], quarantined: true } } })
    renderApp(api)
    await waitFor(() => expect(card('held')).toBeTruthy())
    expect(within(card('held')).queryByRole('button', { name: 'Approve server' })).toBeNull()
    expect(isPrimary(button('held', 'Inspect'))).toBe(false)
  })
})
