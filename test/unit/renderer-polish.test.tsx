// @vitest-environment happy-dom
// Polish a user notices, over the real control service: the header's state line (no
// "0 of 0 servers connected", no stray "·"), the Agents view's recent decisions name the tool, the
// answer to a waiting call keeps its arguments' HMAC readable (it was masked as ***), toasts speak
// the user's clock instead of ISO UTC, counts say "1 tool" not "1 tool(s)", and the time-limit
// menu says what it is in words.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { emptyApi, worldApi } from '../helpers/world-api'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement

describe('the header', () => {
  it('says "No servers yet" on an empty install, and never shows a separator', async () => {
    renderApp(emptyApi())
    await screen.findByText('No MCP servers yet')
    const line = screen.getByRole('banner').querySelector('.summary')!.textContent!
    expect(line).toContain('No servers yet')
    expect(line).not.toMatch(/0 of 0|·/)
  })

  it('with servers: one phrase, counts in words, no separator', async () => {
    renderApp(await worldApi())
    await waitFor(() => expect(card('gh')).toBeTruthy())
    const line = screen.getByRole('banner').querySelector('.summary')!.textContent!
    expect(line).toMatch(/^0 of 4 servers connected, (1 start on first use, )?3 tools callable/)
    expect(line).not.toContain('·')
  })
})

describe('decisions on the record', () => {
  it('the answer to a waiting call names the tool in Recent activity and keeps its HMAC readable', async () => {
    const api = await worldApi()
    await api.service.setAskBeforeCall('gh', 'create_issue', true)
    const entry = api.world.catalog.entry('gh:create_issue')!
    const result = api.grants.confirmations.confirm({ agent: 'gh-only', client: null }, entry, entry.variant, { repo: 'toolgate', title: 'x' })
    const waiting = api.grants.confirmations.list().find((c) => c.tool === 'gh:create_issue')!
    await api.service.denyConfirmation(waiting.id)
    await result
    const { events } = await api.service.activity({ kind: 'decision' })
    const answer = events.find((e) => e.kind === 'decision' && e.action === 'deny')
    expect(answer).toBeDefined()
    if (answer?.kind !== 'decision') throw new Error('no decision')
    expect(answer.args_hmac).toBe(waiting.args_hmac)
    expect(answer.message).not.toContain('***')
    renderApp(api)
    await waitFor(() => expect(card('gh')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Agents' }))
    await waitFor(() => expect(document.querySelector(`[data-agent="gh-only"] [data-activity="${answer.id}"]`)).toBeTruthy())
    expect(document.querySelector(`[data-agent="gh-only"] [data-activity="${answer.id}"]`)!.textContent).toContain('deny gh:create_issue')
    // the Activity view's detail shows the HMAC as it is
    fireEvent.click(screen.getByRole('button', { name: 'Activity' }))
    fireEvent.click(await screen.findByRole('button', { name: `Details of record ${answer.id}` }))
    const drawer = await screen.findByRole('dialog', { name: `Activity record ${answer.id}` })
    expect(drawer.textContent).toContain(waiting.args_hmac)
  })
})

describe('toasts and menus', () => {
  it('a timed approval says until when in the local clock, not ISO UTC; the time menu says "For a time"', async () => {
    const api = await worldApi()
    renderApp(api)
    await waitFor(() => expect(card('legacy')).toBeTruthy())
    const menu = within(card('legacy')).getByRole('button', { name: 'Approve server legacy for a time' })
    expect(menu.textContent).toContain('For a time')
    fireEvent.click(menu)
    fireEvent.click(within(card('legacy')).getByRole('menuitem', { name: 'For 1 hour' }))
    const toast = await waitFor(() => {
      const t = document.querySelector('.toast')?.textContent ?? ''
      if (!t.includes('until')) throw new Error(`no toast with until yet: ${t}`)
      return t
    })
    expect(toast).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/)
    // an hour from now is another day after 23:00: then the date comes first ("Sat, Nov 28, 00:29")
    expect(toast).toMatch(/until (?:[A-Z][a-z]{2}, [A-Z][a-z]{2} \d{1,2}, )?\d{1,2}:\d{2}/)
  })
})
