// @vitest-environment happy-dom
// Each agent's tokens in the Agents view, against the real control service and token store: ids,
// created, last used (never the token), Revoke and Revoke all; the Activity view holds only records.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'
import { agentSession, WORLD_CONFIG } from '../helpers/catalog-fixture'
import { FULL_SCOPE } from '../../src/main/core/access/scope'

afterEach(cleanup)

const agentBox = (name: string) => document.querySelector(`[data-agent="${name}"]`) as HTMLElement
const tokenIds = (name: string) => [...agentBox(name).querySelectorAll('[data-token]')].map((r) => r.getAttribute('data-token'))

describe('agent tokens', () => {
  it('lists each agent with its tokens and revokes one, then all', async () => {
    const api = await worldApi()
    api.world.writeConfig({ ...WORLD_CONFIG, agents: [{ name: 'reader', servers: ['gh'], permissions: ['read'] }] })
    const made = [await api.tokens.create('reader'), await api.tokens.create('reader'), await api.tokens.create('reader')]
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server]')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Agents' }))
    await waitFor(() => expect(agentBox('reader')?.querySelector('[data-token]')).toBeTruthy())
    expect(agentBox('reader').textContent).toContain('gh')
    expect(tokenIds('reader')).toEqual(made.map((m) => m.id))
    for (const m of made) expect(document.body.textContent).not.toContain(m.token)
    expect(agentBox('reader').querySelector(`[data-token="${made[0].id}"]`)?.textContent).toContain('never')

    fireEvent.click(within(agentBox('reader').querySelector(`[data-token="${made[1].id}"]`) as HTMLElement).getByRole('button', { name: 'Revoke' }))
    await waitFor(() => expect(tokenIds('reader')).toEqual([made[0].id, made[2].id]))
    expect(api.calls).toContain(`revokeAgentTokens reader ${made[1].id}`)
    expect(api.tokens.authenticate(made[1].token)).toBeNull()
    expect(api.tokens.authenticate(made[0].token)).not.toBeNull()

    fireEvent.click(within(agentBox('reader')).getByRole('button', { name: 'Revoke all' }))
    await waitFor(() => expect(tokenIds('reader')).toEqual([]))
    expect(api.tokens.authenticate(made[0].token)).toBeNull()
  })

  it('lists no local client among the agents whose tokens can be revoked, and keeps the Activity view to records', async () => {
    const api = await worldApi()
    const local = await agentSession(api.world, FULL_SCOPE, 'claude-code')
    await local.call('retrieve_tools', { query: 'issues' })
    await api.tokens.create('reader')
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server]')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Agents' }))
    await waitFor(() => expect(agentBox('claude-code')).toBeTruthy())
    expect(agentBox('claude-code').querySelector('[data-token]')).toBeNull()
    expect(within(agentBox('claude-code')).queryByRole('button', { name: /Revoke/ })).toBeNull()
    expect(agentBox('reader').querySelectorAll('[data-token]')).toHaveLength(1)
    fireEvent.click(screen.getByRole('button', { name: 'Activity' }))
    await waitFor(() => expect(document.querySelector('[data-activity]')).toBeTruthy())
    // every data-agent in the Activity view is a record
    expect([...document.querySelectorAll('[data-agent]')].every((el) => el.hasAttribute('data-activity'))).toBe(true)
    expect(screen.queryByRole('button', { name: /Revoke/ })).toBeNull()
    expect(api.calls.filter((c) => c.startsWith('agentTokens'))).toEqual([])
  })
})
