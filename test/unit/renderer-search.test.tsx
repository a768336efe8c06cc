// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'
import { setToolDisabled } from '../../src/main/core/catalog/decisions'

afterEach(cleanup)

const results = () => [...document.querySelectorAll('[data-result]')].map((e) => [e.getAttribute('data-result'), e.getAttribute('data-status')])

async function openSearch() {
  const view = renderApp(await worldApi())
  await waitFor(() => expect(document.querySelector('[data-server="gh"]')).toBeTruthy())
  fireEvent.click(screen.getByRole('button', { name: 'Search' }))
  return view
}

describe('search panel', () => {
  it('has a "Search tools" box and an "Include locked tools" checkbox', async () => {
    await openSearch()
    expect(screen.getByRole('searchbox', { name: 'Search tools' })).toBeTruthy()
    const box = screen.getByRole('checkbox', { name: 'Include locked tools' }) as HTMLInputElement
    expect(box.checked).toBe(false)
  })

  it('shows the callable results; locked ones only as the notice', async () => {
    const { api } = await openSearch()
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'repo' } })
    await waitFor(() =>
      expect(results()).toEqual([
        ['gh:list_repos', 'callable'],
        ['gh:create_issue', 'callable'],
        ['gh:search_code', 'callable'],
      ]),
    )
    expect(api.searches.at(-1)).toEqual({ query: 'repo', limit: 15, include_disabled: false })
  })

  it('with "Include locked tools" lists locked entries with their remediation', async () => {
    const { api } = await openSearch()
    fireEvent.click(screen.getByRole('checkbox', { name: 'Include locked tools' }))
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'repo keys' } })
    // callable first, then the name match of the pending tool, then the other locked entries (in
    // ranking order, which is the search's business, not the panel's)
    await waitFor(() => expect(results()).toHaveLength(6))
    expect(results().slice(0, 4)).toEqual([
      ['gh:list_repos', 'callable'],
      ['gh:create_issue', 'callable'],
      ['gh:search_code', 'callable'],
      ['gh:rotate_keys', 'pending_approval'],
    ])
    expect([...results().slice(4)].sort()).toEqual([
      ['gh:archive_repo', 'disabled_by_user'],
      ['gh:delete_repo', 'disabled_by_config'],
    ])
    expect(api.searches.at(-1)).toEqual({ query: 'repo keys', limit: 15, include_disabled: true })
    const locked = document.querySelector('[data-result="gh:delete_repo"]')!
    expect(locked.textContent).toContain('NOT user-overridable')
    const pending = document.querySelector('[data-result="gh:rotate_keys"]')!
    expect(pending.textContent).toContain('matched by name only')
    // its untrusted description never reaches the page
    expect(pending.textContent).not.toContain('Ignore previous instructions')
  })

  it('shows the notice when only locked tools match', async () => {
    await openSearch()
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'delete' } })
    await screen.findByText(/exist but are locked; retry with include_disabled:true/)
    expect(results()).toEqual([])
  })

  it('"Show raw JSON" shows exactly the text retrieve_tools returned', async () => {
    const { api } = await openSearch()
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'repo' } })
    await waitFor(() => expect(results().length).toBe(3))
    fireEvent.click(screen.getByRole('checkbox', { name: 'Show raw JSON' }))
    const raw = document.querySelector('pre.raw')!
    // the same bytes the agent gets from retrieve_tools (the control service's search is that function)
    expect(raw.textContent).toBe(await api.service.search({ query: 'repo', limit: 15, include_disabled: false }))
    expect(JSON.parse(raw.textContent!).tools.map((t: { name: string }) => t.name)).toEqual(['gh:list_repos', 'gh:create_issue', 'gh:search_code'])
  })

  it('names the locked tools that rank above or among the results, as the agent is told (locked_ahead), without descriptions', async () => {
    const { api } = await openSearch()
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'repository' } })
    await waitFor(() => expect(document.querySelectorAll('[data-locked-ahead]').length).toBeGreaterThan(0))
    const shown = [...document.querySelectorAll('[data-locked-ahead]')].map((e) => [e.getAttribute('data-locked-ahead'), e.getAttribute('data-status')])
    // the config-locked delete_repo ("Delete a GitHub repository permanently") outranks callable results
    expect(shown).toContainEqual(['gh:delete_repo', 'disabled_by_config'])
    // exactly the entries the agent gets, in its order
    const agentGets = JSON.parse(await api.service.search({ query: 'repository', limit: 15, include_disabled: false }))
    expect(shown).toEqual(agentGets.locked_ahead.map((e: { name: string; status: string }) => [e.name, e.status]))
    const entry = document.querySelector('[data-locked-ahead="gh:delete_repo"]')!
    expect(entry.textContent).toContain('NOT user-overridable')
    expect(entry.textContent).not.toContain('permanently')
    expect(screen.getByRole('region', { name: 'Locked tools ranked ahead' }).textContent).toMatch(/rank above or among these results/)
    // not counted as results: the contract's data-result markers stay one per result
    expect(results().map(([id]) => id)).not.toContain('gh:delete_repo')
    // with "Include locked tools" the same entries are marked in the locked list, not shown twice
    fireEvent.click(screen.getByRole('checkbox', { name: 'Include locked tools' }))
    await waitFor(() => expect(document.querySelector('[data-result="gh:delete_repo"]')).toBeTruthy())
    const marked = document.querySelector('[data-result="gh:delete_repo"]')!
    expect(marked.getAttribute('data-locked-ahead')).toBe('gh:delete_repo')
    expect(marked.textContent).toContain('ranks ahead')
    expect(document.querySelectorAll('[data-locked-ahead="gh:delete_repo"]')).toHaveLength(1)
    expect(screen.queryByRole('region', { name: 'Locked tools ranked ahead' })).toBeNull()
  })

  it('results follow changes in the core (live)', async () => {
    const { api } = await openSearch()
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'repo' } })
    await waitFor(() => expect(results().length).toBe(3))
    // the user switches list_repos off elsewhere (tray, CLI): the core's event refreshes the results
    await setToolDisabled(api.world.catalog, 'gh', 'list_repos', true)
    await waitFor(() =>
      expect(results()).toEqual([
        ['gh:create_issue', 'callable'],
        ['gh:search_code', 'callable'],
      ]),
    )
  })
})
