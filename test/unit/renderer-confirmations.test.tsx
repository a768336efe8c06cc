// @vitest-environment happy-dom
// The window's side of confirmations, over the real control service and the real
// confirmation queue of a world: a waiting call appears as a card (data-confirmation) with the
// agent, the tool and the escaped arguments, folded behind "Show all"; Allow and Deny answer the
// waiting call; the "Ask me before each call" switches add confirmation and show the config's as locked.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi, type WorldApi } from '../helpers/world-api'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'
import type { ConfirmResult } from '../../src/main/core/requests/confirmations'

afterEach(cleanup)

const card = (id: string) => document.querySelector(`[data-confirmation="${id}"]`) as HTMLElement | null

/** An agent's call of `id` that waits for the user (what the call path does), with the user's switch on that tool. */
async function waitingCall(
  api: WorldApi,
  id: string,
  args: Record<string, unknown>,
  agent = 'gh-only',
): Promise<{ id: string; result: Promise<ConfirmResult> }> {
  const [server, tool] = id.split(':')
  await api.service.setAskBeforeCall(server, tool, true)
  const entry = api.world.catalog.entry(id)!
  const result = api.grants.confirmations.confirm({ agent, client: null }, entry, entry.variant, args)
  const c = api.grants.confirmations.list().find((x) => x.tool === id)!
  return { id: c.id, result }
}

describe('the window shows a call waiting for the OK', () => {
  it('a card with the agent, the tool and the arguments appears at once; Allow lets exactly that call go on', async () => {
    const api = await worldApi()
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server="gh"]')).toBeTruthy())
    const { id, result } = await waitingCall(api, 'gh:create_issue', { repo: 'toolgate', title: 'Typo in README' })
    await waitFor(() => expect(card(id)).toBeTruthy())
    const c = card(id)!
    expect(c.textContent).toMatch(/gh-only wants to run gh:create_issue/)
    expect(c.textContent).toContain('{"repo":"toolgate","title":"Typo in README"}')
    expect(c.textContent).toMatch(/You asked to be asked/)
    expect(screen.getByRole('region', { name: 'Calls waiting for your OK' })).toBeTruthy()
    fireEvent.click(within(c).getByRole('button', { name: 'Allow' }))
    expect((await result).go).toBe(true)
    await waitFor(() => expect(card(id)).toBeNull())
    expect(api.calls).toContain(`allowConfirmation ${id}`)
  })

  it('"Needs your attention" names the waiting call first and jumps to its card; the title counts it', async () => {
    const api = await worldApi()
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server="gh"]')).toBeTruthy())
    expect(document.querySelector('[data-attention="calls"]')).toBeNull()
    const before = Number(/^\((\d+)\)/.exec(document.title)?.[1] ?? 0)
    const { id } = await waitingCall(api, 'gh:create_issue', { repo: 'toolgate', title: 'x' })
    await waitFor(() => expect(document.querySelector('[data-attention="calls"]')).toBeTruthy())
    const line = document.querySelector('.attention')!
    const items = [...line.querySelectorAll('[data-attention]')].map((e) => e.getAttribute('data-attention'))
    expect(items[0]).toBe('calls')
    expect(line.querySelector('[data-attention="calls"]')!.textContent).toBe('1 call waits for your OK')
    await waitFor(() => expect(document.title).toBe(`(${before + 1}) Toolgate`))
    // the jump: from another view too; the card gets the focus (not Allow: an Enter must not answer it)
    fireEvent.click(screen.getByRole('button', { name: 'Activity' }))
    fireEvent.click(line.querySelector('[data-attention="calls"]')!)
    expect(document.activeElement).toBe(card(id))
    await api.grants.confirmations.deny(id)
    await waitFor(() => expect(document.querySelector('[data-attention="calls"]')).toBeNull())
  })

  it('Deny answers CALL_DECLINED and the card goes away', async () => {
    const api = await worldApi()
    renderApp(api)
    const { id, result } = await waitingCall(api, 'gh:list_repos', { owner: 'me' })
    await waitFor(() => expect(card(id)).toBeTruthy())
    fireEvent.click(within(card(id)!).getByRole('button', { name: 'Deny' }))
    const r = await result
    expect(r.go).toBe(false)
    expect(r.go === false && r.text).toMatch(/^CALL_DECLINED: /)
    await waitFor(() => expect(card(id)).toBeNull())
  })

  it('long arguments fold behind Show all; bidi and invisible characters are shown escaped, never applied', async () => {
    const api = await worldApi()
    renderApp(api)
    const long = 'x'.repeat(2000)
    const { id } = await waitingCall(api, 'gh:create_issue', { title: 'ok \u202egnp.exe\u200b', body: long, tail: 'THE END' })
    await waitFor(() => expect(card(id)).toBeTruthy())
    const c = card(id)!
    expect(c.textContent).not.toMatch(/[\u202e\u200b]/)
    expect(c.textContent).toContain('ok \\u{202e}gnp.exe\\u{200b}')
    expect(c.textContent).not.toContain('THE END')
    const more = within(c).getByRole('button', { name: 'Show all' })
    expect(more.getAttribute('aria-expanded')).toBe('false')
    fireEvent.click(more)
    expect(c.textContent).toContain('THE END')
    expect(within(c).getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true')
    await api.grants.confirmations.deny(id)
  })
})

describe('"Ask me before each call"', () => {
  it('the user switch on a tool turns on, and the config rule shows locked with the operator sentence', async () => {
    const api = await worldApi()
    const servers = WORLD_CONFIG.mcpServers as Record<string, Record<string, unknown>>
    api.world.writeConfig({ ...WORLD_CONFIG, mcpServers: { ...servers, gh: { ...servers.gh, confirm: 'write' } } })
    renderApp(api)
    const row = (id: string) => document.querySelector(`[data-tool="${id}"]`) as HTMLElement | null
    await waitFor(() => expect(row('gh:create_issue')).toBeTruthy())
    // create_issue needs call_tool_write: the operator's rule, locked and checked
    const locked = within(row('gh:create_issue')!).getByRole('checkbox', { name: /Ask me before each call/ }) as HTMLInputElement
    expect(locked.checked).toBe(true)
    expect(locked.disabled).toBe(true)
    expect(row('gh:create_issue')!.textContent).toMatch(
      /The operator requires confirmation here \("confirm": "write".*mcp_config\.json\)\. This is not a switch in Toolgate/,
    )
    // list_repos is a read: the user's own switch, free to turn on
    const free = within(row('gh:list_repos')!).getByRole('checkbox', { name: /Ask me before each call/ }) as HTMLInputElement
    expect(free.checked).toBe(false)
    expect(free.disabled).toBe(false)
    fireEvent.click(free)
    await waitFor(() =>
      expect((within(row('gh:list_repos')!).getByRole('checkbox', { name: /Ask me before each call/ }) as HTMLInputElement).checked).toBe(true),
    )
    expect(api.grants.confirmations.requirement(api.world.catalog.entry('gh:list_repos')!)).toMatchObject({ required: true, user: true, config: false })
    // the server card names the operator's rule and offers the server-wide switch
    const gh = document.querySelector('[data-server="gh"]') as HTMLElement
    expect(within(gh).getByRole('checkbox', { name: 'Ask me before each call to this server' })).toBeTruthy()
    expect(gh.textContent).toMatch(/"confirm": "write" \(write and destructive calls\)/)
  })
})
