// @vitest-environment happy-dom
// An access request answered at the agent's own client, on the real
// AccessRequests of the world with every status: the Requests view and `requests list` say where
// it was answered; only the window's choices count, and a grant that would approve something
// nobody reviewed (a new tool, a server in quarantine) cannot be given from the client at all.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi, type WorldApi } from '../helpers/world-api'

afterEach(cleanup)

async function ask(api: WorldApi, agent: string, name: string): Promise<string> {
  // the agent's scope as the core binds it (an agent not in the config throws)
  const r = await api.grants.requests.ask({ agent, client: 'claude-code' }, api.world.core.scopeForAgent(agent), { name, reason: 'for the user' })
  return r.request_id as string
}

const card = (id: string) => document.querySelector(`[data-request="${id}"]`) as HTMLElement

describe('a request answered in the agent’s own client', () => {
  it('the Requests view says so; the tool opens as from the window', async () => {
    const api = await worldApi()
    const id = await ask(api, 'no-destroy', 'gh:archive_repo')
    expect(api.grants.requests.clientChoices(id)?.answers).toEqual(['once', '1h', 'always', 'deny'])
    expect(await api.grants.requests.answerFromClient(id, '1h', api.grants.requests.clientChoices(id)?.hash)).toBe(true)
    expect(api.world.catalog.entry('gh:archive_repo')?.status).toBe('callable')
    renderApp(api)
    const tab = await waitFor(() => within(document.querySelector('nav.tabs') as HTMLElement).getByRole('button', { name: 'Requests' }))
    fireEvent.click(tab)
    await waitFor(() => expect(card(id)).toBeTruthy())
    expect(card(id).getAttribute('data-status')).toBe('granted')
    expect(card(id).textContent).toMatch(/Allowed for 1h .*in the agent’s own client/)
    // a second answer from the client (or a replay) changes nothing
    expect(await api.grants.requests.answerFromClient(id, 'deny')).toBe(false)
    expect(api.grants.requests.list().find((r) => r.id === id)).toMatchObject({ status: 'granted', answered_via: 'client' })
  })

  it('what the question did not offer is refused: Allow once on a server that is off, anything on a new tool or a server in quarantine', async () => {
    const api = await worldApi()
    const off = await ask(api, 'no-destroy', 'files:write_file')
    expect(api.grants.requests.clientChoices(off)?.answers).toEqual(['1h', 'always', 'deny'])
    await expect(api.grants.requests.answerFromClient(off, 'once')).rejects.toMatchObject({ code: 'review_in_window' })
    for (const name of ['gh:rotate_keys', 'legacy:close_ticket', 'sketchy:export_secrets']) {
      const id = await ask(api, 'no-destroy', name)
      expect(api.grants.requests.clientChoices(id)).toBeNull()
      await expect(api.grants.requests.answerFromClient(id, 'always')).rejects.toMatchObject({ code: 'review_in_window' })
      expect(api.grants.requests.list().find((r) => r.id === id)?.status).toBe('pending')
    }
    expect(api.world.catalog.entry('gh:rotate_keys')?.status).toBe('pending_approval')
    expect(api.world.catalog.entry('legacy:close_ticket')?.status).toBe('server_quarantined')
  })
})
