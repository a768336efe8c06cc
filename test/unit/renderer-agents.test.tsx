// @vitest-environment happy-dom
// The Agents view against the real control service (buildWorld): each configured agent and each
// local client seen in the activity record, with its scope, reach and why not more, context cost
// and recent activity; data-agent on each card.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { agentSession } from '../helpers/catalog-fixture'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'

afterEach(cleanup)

const cards = () => [...document.querySelectorAll('[data-agent]')].map((c) => c.getAttribute('data-agent'))

describe('Agents view', () => {
  it('shows every agent with its scope, what it can reach and why the rest is out of reach, and the context it saves', async () => {
    const api = await worldApi()
    const local = await agentSession(api.world, FULL_SCOPE, 'claude-code')
    await local.call('call_tool_read', { name: 'gh:delete_repo' })
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server="gh"]')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Agents' }))
    await waitFor(() => expect(cards()).toEqual(['gh-only', 'reader', 'no-destroy', 'claude-code']))
    const { agents } = await api.service.agents()
    const reader = document.querySelector('[data-agent="reader"]') as HTMLElement
    expect(reader.textContent).toContain('may call read')
    const gh = reader.querySelector('[data-reach="gh"]') as HTMLElement
    expect(gh.getAttribute('data-reachable')).toBe('true')
    expect(gh.textContent).toContain('2 callable')
    expect(gh.textContent).toContain('3 need write permission')
    expect(reader.querySelector('[data-reach="files"]')!.textContent).toContain('the server is switched off')
    const ghOnly = document.querySelector('[data-agent="gh-only"]') as HTMLElement
    expect(ghOnly.querySelector('[data-reach="legacy"]')!.textContent).toContain('not assigned to this agent')
    // the figures are the API's: tokens at connect and in full
    const cost = agents.find((a) => a.name === 'reader')!.context
    expect(within(reader).getByText(cost.at_connect.toLocaleString())).toBeTruthy()
    expect(within(reader).getByText(cost.all_callable.toLocaleString())).toBeTruthy()
    const claude = document.querySelector('[data-agent="claude-code"]') as HTMLElement
    expect(claude.textContent).toContain('local client')
    expect(claude.textContent).toContain('gh:delete_repo → blocked')
  })
})
