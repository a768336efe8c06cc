// @vitest-environment happy-dom
// A server's isolation in the UI (issue 16, CONTRACT §7): data-isolated on its container, a badge
// (isolated / not isolated / remote), its permissions, and Inspect with network after an
// Inspect failed without network.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { ApiError } from '../../src/shared/api'
import { renderApp } from '../helpers/render-app'
import { FakeApi, type FakeServer } from '../helpers/fake-api'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement

const servers = (): FakeServer[] => [
  {
    name: 'files',
    tools: [{ tool: 'read_file', description: 'Read a file' }],
    isolation: {
      isolated: true,
      mechanism: 'bwrap',
      profile: { network: false, fs_read: ['/etc/app'], fs_write: ['/home/me/.npm', '/home/me/.cache', '/home/me/notes'] },
    },
  },
  {
    name: 'raw',
    tools: [{ tool: 'run', description: 'Run a thing' }],
    isolation: { isolated: false, risk: true, reason: 'sandbox: false in mcp_config.json: the operator turned isolation off', profile: null },
  },
  { name: 'remote', tools: [{ tool: 'ask', description: 'Ask' }], isolation: { isolated: false, risk: false, reason: 'remote (HTTP) server', profile: null } },
  { name: 'fresh', quarantined: true, tools: [{ tool: 'x', description: 'X' }] },
]

describe('isolation in the server list', () => {
  it('marks each server container with data-isolated and shows the badge', async () => {
    renderApp(servers())
    await waitFor(() => expect(card('files')).toBeTruthy())
    expect(card('files').getAttribute('data-isolated')).toBe('true')
    expect(card('raw').getAttribute('data-isolated')).toBe('false')
    expect(card('remote').getAttribute('data-isolated')).toBe('false')
    const badge = (name: string) => card(name).querySelector('.server-head .badge')
    expect(badge('files')?.textContent).toBe('isolated')
    expect(badge('raw')?.textContent).toBe('not isolated')
    expect(badge('raw')?.getAttribute('title')).toMatch(/sandbox: false/)
    expect(badge('remote')?.textContent).toBe('remote')
  })

  it('an opened card lists the permissions; a not isolated one says why', async () => {
    renderApp(servers())
    await waitFor(() => expect(card('files')).toBeTruthy())
    fireEvent.click(within(card('files')).getByRole('button', { name: 'files' }))
    await waitFor(() => expect(card('files').querySelector('[data-permission="network"]')).toBeTruthy())
    expect(card('files').querySelector('[data-permission="network"]')?.textContent).toBe('off')
    expect(card('files').querySelector('[data-permission="fs_write"]')?.textContent).toBe(
      'its private temp folder, /home/me/.npm, /home/me/.cache, /home/me/notes',
    )
    expect(card('files').querySelector('[data-permission="fs_read"]')?.textContent).toBe('/etc/app')

    fireEvent.click(within(card('raw')).getByRole('button', { name: 'raw' }))
    await waitFor(() => expect(within(card('raw')).getByText(/Not isolated:/)).toBeTruthy())
    expect(card('raw').textContent).toContain('the operator turned isolation off')
    expect(card('raw').querySelector('[data-permission]')).toBeNull()
  })
})

describe('Inspect with network', () => {
  it('is offered only after an Inspect failed without network, and asks for the network when clicked', async () => {
    const api = new FakeApi(servers())
    renderApp(undefined, api)
    await waitFor(() => expect(card('fresh')).toBeTruthy())
    const buttons = () =>
      within(card('fresh'))
        .queryAllByRole('button')
        .map((b) => b.textContent)
    expect(buttons()).not.toContain('Inspect with network')

    api.failNext(
      'serverAction',
      new ApiError('inspect_failed_offline', 'could not inspect fresh: it exited. Inspect runs a server without network access…', 502),
    )
    fireEvent.click(within(card('fresh')).getByRole('button', { name: 'Inspect' }))
    const withNetwork = await waitFor(() => within(card('fresh')).getByRole('button', { name: 'Inspect with network' }))
    expect(withNetwork.getAttribute('title')).toMatch(/risk/i)
    expect(screen.getByText(/Inspect runs a server without network access/)).toBeTruthy()

    fireEvent.click(withNetwork)
    await waitFor(() => expect(api.calls).toContain('serverAction fresh inspect {"network":true}'))
  })

  it('another failure of Inspect (not about the network) does not offer it', async () => {
    const api = new FakeApi(servers())
    renderApp(undefined, api)
    await waitFor(() => expect(card('fresh')).toBeTruthy())
    api.failNext('serverAction', new ApiError('inspect_failed', 'could not inspect fresh: spawn ENOENT', 502))
    fireEvent.click(within(card('fresh')).getByRole('button', { name: 'Inspect' }))
    await waitFor(() => expect(screen.getByText(/spawn ENOENT/)).toBeTruthy())
    expect(within(card('fresh')).queryByRole('button', { name: 'Inspect with network' })).toBeNull()
  })
})
