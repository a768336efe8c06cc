// @vitest-environment happy-dom
// In the window, over the real control service and catalog: a tool without
// annotations says "no annotations: treated as destructive", the window suggests a class from the
// name and never applies it, the user's click classifies exactly the definition on screen, a
// changed definition asks again, and an operator's class is shown read-only.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { WorldApi } from '../helpers/world-api'
import { ingestTools } from '../../src/main/core/catalog/decisions'
import { makeFixture, READ, runServer, tool } from '../helpers/catalog-fixture'

afterEach(cleanup)

const GET = tool('get_gist', 'Get a gist by id')
const PURGE = tool('purge_cache', 'Empty the cache')
const LIST = tool('list_gists', 'List gists', { annotations: READ })

async function gists(extra: Record<string, unknown> = {}): Promise<WorldApi> {
  const fx = makeFixture({ mcpServers: { gists: { command: 'node', quarantined: false, ...extra } } })
  await runServer(fx, 'gists', [GET, PURGE, LIST])
  return new WorldApi(fx)
}

const row = (id: string) => document.querySelector(`[data-tool="${id}"]`) as HTMLElement

async function openCard(): Promise<void> {
  await waitFor(() => expect(document.querySelector('[data-server="gists"]')).toBeTruthy())
  if (!row('gists:get_gist')) fireEvent.click(within(document.querySelector('[data-server="gists"]') as HTMLElement).getAllByRole('button')[0])
  await waitFor(() => expect(row('gists:get_gist')).toBeTruthy())
}

describe('a tool without annotations in the window', () => {
  it('says "no annotations: treated as destructive", suggests a class from its name, and applies nothing', async () => {
    const api = await gists()
    renderApp(api)
    await openCard()
    const r = row('gists:get_gist')
    expect(r.textContent).toContain('no annotations: treated as destructive')
    expect(r.querySelector('[data-annotations-missing="true"]')).toBeTruthy()
    const group = within(r).getByRole('group', { name: 'Classify get_gist' })
    expect(group.querySelector('[data-suggested-class="read"]')?.textContent).toMatch(/Its name suggests read/)
    const read = within(group).getByRole('button', { name: 'Classify as read' })
    expect(read.getAttribute('data-suggested')).toBe('true')
    // nothing is chosen for the user: no button pressed, and the core still needs destructive
    for (const b of within(group).getAllByRole('button')) expect(b.getAttribute('aria-pressed')).toBe('false')
    expect(api.calls.filter((c) => c.startsWith('classifyTool'))).toEqual([])
    expect(api.world.catalog.entry('gists:get_gist')?.variant).toBe('destructive')
    // an annotated tool has no such block
    expect(within(row('gists:list_gists')).queryByRole('group', { name: /Classify/ })).toBeNull()
    expect(row('gists:list_gists').textContent).not.toContain('no annotations')
  })

  it("the user's click classifies exactly the definition on screen; a changed definition asks again", async () => {
    const api = await gists()
    renderApp(api)
    await openCard()
    const hash = api.world.catalog.entry('gists:purge_cache')?.hash
    const group = within(row('gists:purge_cache')).getByRole('group', { name: 'Classify purge_cache' })
    // "purge" suggests destructive; the user knows better and says write
    expect(within(group).getByRole('button', { name: 'Classify as destructive' }).getAttribute('data-suggested')).toBe('true')
    fireEvent.click(within(group).getByRole('button', { name: 'Classify as write' }))
    await waitFor(() => expect(api.world.catalog.entry('gists:purge_cache')?.variant).toBe('write'))
    expect(api.calls).toContain(`classifyTool gists purge_cache write ${hash}`)
    await waitFor(() => expect(row('gists:purge_cache').textContent).toContain('write (classified by you)'))
    const after = within(row('gists:purge_cache')).getByRole('group', { name: 'Classify purge_cache' })
    expect(within(after).getByRole('button', { name: 'Classify as write' }).getAttribute('aria-pressed')).toBe('true')
    expect(after.textContent).toMatch(/You classified it write/)

    // the server changes the tool: the class was for the old definition
    await ingestTools(api.world.catalog, 'gists', [GET, tool('purge_cache', 'Empty the cache and the backups'), LIST])
    await waitFor(() => expect(row('gists:purge_cache').textContent).toContain('no annotations: treated as destructive'))
    const again = within(row('gists:purge_cache')).getByRole('group', { name: 'Classify purge_cache' })
    for (const b of within(again).getAllByRole('button')) expect(b.getAttribute('aria-pressed')).toBe('false')
  })

  it("an operator's class is shown read-only, with no classify buttons", async () => {
    const api = await gists({ tool_classes: { get_gist: 'read' } })
    renderApp(api)
    await openCard()
    const r = row('gists:get_gist')
    expect(r.textContent).toContain('read (classified by the operator)')
    expect(r.querySelector('[data-classification="operator"]')?.textContent).toMatch(/tool_classes.*cannot be changed from Toolgate/)
    expect(within(r).queryByRole('group', { name: /Classify/ })).toBeNull()
  })
})
