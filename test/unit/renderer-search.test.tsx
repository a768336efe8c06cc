// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'

afterEach(cleanup)

const results = () => [...document.querySelectorAll('[data-result]')].map((e) => [e.getAttribute('data-result'), e.getAttribute('data-status')])

async function openSearch() {
  const view = renderApp()
  await waitFor(() => expect(document.querySelector('[data-server="github"]')).toBeTruthy())
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
    await waitFor(() => expect(results()).toEqual([['github:list_repos', 'callable']]))
    expect(api.searches.at(-1)).toEqual({ query: 'repo', limit: 15, include_disabled: false })
  })

  it('with "Include locked tools" lists locked entries with their remediation', async () => {
    const { api } = await openSearch()
    fireEvent.click(screen.getByRole('checkbox', { name: 'Include locked tools' }))
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'repo keys' } })
    await waitFor(() =>
      expect(results()).toEqual([
        ['github:list_repos', 'callable'],
        ['github:delete_repo', 'disabled_by_config'],
        ['shady:rotate_keys', 'server_quarantined'],
      ]),
    )
    expect(api.searches.at(-1)).toEqual({ query: 'repo keys', limit: 15, include_disabled: true })
    const locked = document.querySelector('[data-result="github:delete_repo"]')!
    expect(locked.textContent).toContain('NOT user-overridable')
    const quarantined = document.querySelector('[data-result="shady:rotate_keys"]')!
    expect(quarantined.textContent).toContain('matched by name only')
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
    await waitFor(() => expect(results().length).toBe(1))
    fireEvent.click(screen.getByRole('checkbox', { name: 'Show raw JSON' }))
    const raw = document.querySelector('pre.raw')!
    expect(raw.textContent).toBe(await api.search({ query: 'repo', limit: 15, include_disabled: false }))
  })

  it('results follow changes in the core (live)', async () => {
    const { api } = await openSearch()
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search tools' }), { target: { value: 'repo' } })
    await waitFor(() => expect(results().length).toBe(1))
    api.server('github').tools.find((t) => t.tool === 'list_repos')!.userDisabled = true
    api.emit({ type: 'tools.changed', data: { server: 'github' } })
    await waitFor(() => expect(results()).toEqual([]))
  })
})
