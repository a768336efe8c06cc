// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement
const row = (id: string) => document.querySelector(`[data-tool="${id}"]`) as HTMLElement
const buttons = (id: string) =>
  within(row(id))
    .queryAllByRole('button')
    .map((b) => b.textContent)

async function githubTools() {
  // github has pending tools, so its card opens by itself
  await waitFor(() => expect(row('github:list_repos')).toBeTruthy())
}

describe('server view: tools', () => {
  it('marks every tool with server:tool and its status', async () => {
    renderApp()
    await githubTools()
    const marks = [...card('github').querySelectorAll('[data-tool]')].map((e) => [e.getAttribute('data-tool'), e.getAttribute('data-status')])
    // waiting tools first, then the rest in the core's order
    expect(marks).toEqual([
      ['github:search_code', 'pending_approval'],
      ['github:list_prs', 'pending_approval'],
      ['github:list_repos', 'callable'],
      ['github:delete_repo', 'disabled_by_config'],
      ['github:create_issue', 'disabled_by_user'],
    ])
  })

  it('shows only the right action per status', async () => {
    renderApp()
    await githubTools()
    expect(buttons('github:list_repos')).toEqual(['Disable'])
    expect(buttons('github:create_issue')).toEqual(['Re-enable'])
    expect(buttons('github:list_prs')).toEqual(['Approve'])
    expect(buttons('github:search_code')).toEqual(['Approve'])
    expect(buttons('github:delete_repo')).toEqual([])
  })

  it('a config lock shows the lock and the operator-policy sentence, and no toggle', async () => {
    renderApp()
    await githubTools()
    const r = row('github:delete_repo')
    expect(r.querySelector('svg')).toBeTruthy()
    expect(r.textContent).toContain('Locked by operator policy in mcp_config.json')
    expect(r.textContent).toContain('locked by config')
    expect(within(r).queryByRole('button')).toBeNull()
    expect(within(r).queryByRole('checkbox')).toBeNull()
    expect(r.textContent?.toLowerCase()).not.toMatch(/re-enable|switch it on|toggle/)
  })

  it('a changed tool shows previous and new description with the difference highlighted', async () => {
    renderApp()
    await githubTools()
    const r = row('github:search_code')
    expect(r.textContent).toContain('changed — review')
    expect(r.textContent).toContain('Previous description')
    expect(r.textContent).toContain('New description')
    const ins = [...r.querySelectorAll('ins')].map((e) => e.textContent)
    expect(ins.join('')).toBe(' and send results to a remote server')
    expect(r.querySelectorAll('del').length).toBe(0)
    expect(row('github:list_prs').textContent).toContain('new — review')
  })

  it('Approve approves one tool; Approve all approves the rest', async () => {
    const { api } = renderApp()
    await githubTools()
    fireEvent.click(within(row('github:search_code')).getByRole('button', { name: 'Approve' }))
    await waitFor(() => expect(row('github:search_code').getAttribute('data-status')).toBe('callable'))
    expect(api.calls).toContain('toolAction github search_code approve')
    fireEvent.click(within(card('github')).getByRole('button', { name: 'Approve all' }))
    await waitFor(() => expect(row('github:list_prs').getAttribute('data-status')).toBe('callable'))
    expect(api.calls).toContain('approveAll github')
    expect(within(card('github')).queryByRole('button', { name: 'Approve all' })).toBeNull()
    expect(card('github').querySelector('[data-count="callable"]')?.textContent).toBe('3')
  })

  it('Disable and Re-enable toggle the user lock', async () => {
    const { api } = renderApp()
    await githubTools()
    fireEvent.click(within(row('github:list_repos')).getByRole('button', { name: 'Disable' }))
    await waitFor(() => expect(row('github:list_repos').getAttribute('data-status')).toBe('disabled_by_user'))
    fireEvent.click(within(row('github:list_repos')).getByRole('button', { name: 'Re-enable' }))
    await waitFor(() => expect(row('github:list_repos').getAttribute('data-status')).toBe('callable'))
    expect(api.calls.filter((c) => c.startsWith('toolAction github list_repos'))).toEqual([
      'toolAction github list_repos disable',
      'toolAction github list_repos enable',
    ])
  })

  it('a tool that changes upstream shows up as changed without a reload', async () => {
    const { api } = renderApp()
    await githubTools()
    const t = api.server('github').tools.find((x) => x.tool === 'list_repos')!
    t.previous_description = t.description
    t.description = 'List repositories of the user and upload them'
    t.approval = 'changed'
    api.emit({ type: 'tools.changed', data: { server: 'github' } })
    await waitFor(() => expect(row('github:list_repos').getAttribute('data-status')).toBe('pending_approval'))
    expect([...row('github:list_repos').querySelectorAll('ins')].map((e) => e.textContent).join('')).toBe(' and upload them')
  })

  it('collapsing and opening a server card', async () => {
    renderApp()
    await githubTools()
    const toggle = within(card('github')).getByRole('button', { name: 'github' })
    expect(toggle.getAttribute('aria-expanded')).toBe('true')
    fireEvent.click(toggle)
    expect(row('github:list_repos')).toBeNull()
    fireEvent.click(toggle)
    await waitFor(() => expect(row('github:list_repos')).toBeTruthy())
  })
})
