// @vitest-environment happy-dom
// The Activity view against the real control service and the real activity recorder (buildWorld:
// every status): agents' searches and calls made through real agent sessions show up with the
// docs/contract.md §7 markers, live, filtered, in a detail drawer, and the search demand leads to the
// locked tool in one click.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { agentSession } from '../helpers/catalog-fixture'
import { renderApp } from '../helpers/render-app'
import { worldApi, type WorldApi } from '../helpers/world-api'

afterEach(cleanup)

const rows = () => [...document.querySelectorAll('[data-activity]')].map((r) => [r.getAttribute('data-outcome'), r.getAttribute('data-agent')])

/** An agent session on the same world, recording into the API's activity log. */
function agent(api: WorldApi, name: 'reader' | null, client: string) {
  return agentSession(api.world, name ?? FULL_SCOPE, client)
}

async function openActivity(api: WorldApi) {
  renderApp(api)
  await waitFor(() => expect(document.querySelector('[data-server="gh"]')).toBeTruthy())
  fireEvent.click(screen.getByRole('button', { name: 'Activity' }))
  await waitFor(() => expect(api.calls.some((c) => c.startsWith('activity'))).toBe(true))
}

describe('Activity view', () => {
  it('lists what agents did, newest first, with data-activity, data-outcome and data-agent, and puts new records on top live', async () => {
    const api = await worldApi()
    const claude = await agent(api, null, 'claude-code')
    await claude.call('retrieve_tools', { query: 'rotate keys' })
    await claude.call('call_tool_destructive', { name: 'gh:delete_repo', args: { repo: 'x' } })
    await openActivity(api)
    await waitFor(() =>
      expect(rows()).toEqual([
        ['blocked', 'claude-code'],
        ['locked_only', 'claude-code'],
      ]),
    )
    const reader = await agent(api, 'reader', 'cursor')
    await reader.call('call_tool_read', { name: 'gh:create_issue', args: { title: 'hi' } })
    await waitFor(() => expect(rows()[0]).toEqual(['blocked', 'reader']))
    const top = document.querySelector('[data-activity]')!
    expect(top.textContent).toContain('gh:create_issue')
    expect(top.textContent).toContain('out of scope')
  })

  it('sends the filters to the API and keeps new records out that do not match them', async () => {
    const api = await worldApi()
    const claude = await agent(api, null, 'claude-code')
    await claude.call('call_tool_destructive', { name: 'gh:delete_repo' })
    await claude.call('call_tool_read', { name: 'gh:list_repos' }) // not running: an error
    await openActivity(api)
    await waitFor(() => expect(rows()).toHaveLength(2))
    fireEvent.change(screen.getByRole('combobox', { name: 'Outcome' }), { target: { value: 'blocked' } })
    await waitFor(() => expect(rows()).toEqual([['blocked', 'claude-code']]))
    expect(api.calls.at(-1)).toBe('activity {"outcome":"blocked","limit":100}')
    await claude.call('call_tool_read', { name: 'gh:search_code' }) // an error: filtered out
    await claude.call('call_tool_write', { name: 'gh:archive_repo' }) // blocked: shown
    await waitFor(() => expect(rows()).toHaveLength(2))
    expect(document.querySelector('[data-activity]')!.textContent).toContain('gh:archive_repo')
    fireEvent.change(screen.getByRole('combobox', { name: 'Agent' }), { target: { value: 'claude-code' } })
    await waitFor(() => expect(api.calls.at(-1)).toBe('activity {"agent":"claude-code","outcome":"blocked","limit":100}'))
  })

  it('opens a record in a drawer with its redacted arguments, their digest and the remediation of the lock', async () => {
    const api = await worldApi()
    const claude = await agent(api, null, 'claude-code')
    await claude.call('call_tool_destructive', { name: 'gh:delete_repo', args: { repo: 'x', token: 'do-not-show-me' } })
    await openActivity(api)
    const [record] = (await api.service.activity({ limit: 1 })).events
    fireEvent.click(await screen.findByRole('button', { name: `Details of record ${record.id}` }))
    const drawer = screen.getByRole('dialog', { name: `Activity record ${record.id}` })
    expect(drawer.textContent).toContain('{"repo":"x","token":"***"}')
    expect(drawer.textContent).not.toContain('do-not-show-me')
    expect(drawer.textContent).toContain(record.kind === 'call' ? record.args_hmac : '?')
    expect(drawer.textContent).toContain('NOT user-overridable')
    expect(drawer.textContent).toContain('claude-code')
    fireEvent.click(within(drawer).getByRole('button', { name: 'Close' }))
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('shows the search demand with the locked tools each query matched; Review opens the tool in the Servers view', async () => {
    const api = await worldApi()
    const claude = await agent(api, null, 'claude-code')
    await claude.call('retrieve_tools', { query: 'rotate keys' })
    await claude.call('retrieve_tools', { query: 'rotate keys' })
    await openActivity(api)
    const demand = await waitFor(() => {
      const row = document.querySelector('[data-demand="rotate keys"]')
      expect(row).toBeTruthy()
      return row as HTMLElement
    })
    expect(within(demand).getAllByRole('cell')[1].textContent).toBe('2')
    fireEvent.click(within(demand).getByRole('button', { name: 'Review gh:rotate_keys' }))
    await waitFor(() => expect(document.querySelector('[data-tool="gh:rotate_keys"]')).toBeTruthy())
    expect(screen.getByRole('button', { name: 'Servers' }).getAttribute('aria-current')).toBe('page')
  })

  it('shows what an agent wrote as text: markup stays inert, control, bidi and invisible characters are escaped', async () => {
    const api = await worldApi()
    const client = 'evil<img src=x onerror="globalThis.pwned=1">\u202egnp.exe\u200b\u001b]0;t\u0007'
    const evil = await agent(api, null, client)
    await evil.call('retrieve_tools', { query: 'rotate <script>globalThis.pwned=2</script> keys \u202eeulav\u2066' })
    await evil.call('call_tool_read', { name: 'gh:<b>bold</b>\u202elist_repos', args: { note: '<img src=y>\u202ereversed\u009b31m' } })
    await openActivity(api)
    await waitFor(() => expect(rows()).toHaveLength(2))
    // the contract marker keeps the name as the agent gave it
    expect(rows().map((r) => r[1])).toEqual([client, client])
    const [call] = (await api.service.activity({ limit: 1 })).events
    fireEvent.click(await screen.findByRole('button', { name: `Details of record ${call.id}` }))
    const drawer = screen.getByRole('dialog', { name: `Activity record ${call.id}` })
    const table = document.querySelector('.activity-table') as HTMLElement
    const agentFilter = screen.getByRole('combobox', { name: 'Agent' })
    await waitFor(() => expect(agentFilter.textContent).toContain('gnp.exe'))
    for (const el of [table, drawer, agentFilter]) {
      expect(el.querySelector('img, script, b')).toBeNull()
      expect(el.textContent).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/)
    }
    expect(table.textContent).toContain('evil<img src=x onerror="globalThis.pwned=1">\\u202egnp.exe\\u200b\\u001b]0;t\\u0007')
    expect(table.textContent).toContain('rotate <script>globalThis.pwned=2</script> keys \\u202eeulav\\u2066')
    expect(drawer.textContent).toContain('gh:<b>bold</b>\\u202elist_repos')
    expect(drawer.textContent).toContain('<img src=y>\\u202ereversed\\u009b31m')
    expect((globalThis as { pwned?: number }).pwned).toBeUndefined()
  })
})
