// @vitest-environment happy-dom
// A server's isolation in the UI (issue 16, docs/contract.md §7) against the real control service:
// data-isolated on its container, a badge (isolated / not isolated / remote), its permissions,
// and Inspect with network offered after a real Inspect failed without network.
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { ApiError } from '../../src/shared/api'
import { renderApp } from '../helpers/render-app'
import { WorldApi } from '../helpers/world-api'
import { makeFixture } from '../helpers/catalog-fixture'
import { NO_REGISTRY, REGISTRY_HOST, registryReachable } from '../helpers/network'

const ATTACKER = path.resolve(__dirname, '../fixtures/sandbox/attacker-server.mjs')
const HOME = process.env.HOME as string

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement

function api(): WorldApi {
  return new WorldApi(
    makeFixture({
      mcpServers: {
        files: {
          command: 'node',
          args: ['files.js'],
          quarantined: false,
          enabled: false,
          sandbox: { fs_write: ['/srv/notes'], fs_read: ['/etc/app'], network: false },
        },
        raw: { command: 'node', args: ['raw.js'], quarantined: false, enabled: false, sandbox: false },
        remote: { url: 'https://example.com/mcp', quarantined: false, enabled: false },
        // must reach the outside network to start (like npx downloading its package)
        fresh: { command: process.execPath, args: [ATTACKER], env: { NEED_NETWORK: `${REGISTRY_HOST}:443` } },
      },
    }),
  )
}

describe('isolation in the server list', () => {
  it('marks each server container with data-isolated and shows the badge', async () => {
    renderApp(api())
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
    renderApp(api())
    await waitFor(() => expect(card('files')).toBeTruthy())
    fireEvent.click(within(card('files')).getByRole('button', { name: 'files' }))
    await waitFor(() => expect(card('files').querySelector('[data-permission="network"]')).toBeTruthy())
    expect(card('files').querySelector('[data-permission="network"]')?.textContent).toBe('off')
    expect(card('files').querySelector('[data-permission="fs_write"]')?.textContent).toBe(`its private temp folder, ${HOME}/.npm, ${HOME}/.cache, /srv/notes`)
    expect(card('files').querySelector('[data-permission="fs_read"]')?.textContent).toBe('/etc/app')

    fireEvent.click(within(card('raw')).getByRole('button', { name: 'raw' }))
    await waitFor(() => expect(within(card('raw')).getByText(/Not isolated:/)).toBeTruthy())
    expect(card('raw').textContent).toContain('the operator turned isolation off')
    expect(card('raw').querySelector('[data-permission]')).toBeNull()
  })
})

describe('Inspect with network', () => {
  it('is offered only after an Inspect failed without network; clicked, it inspects with the network', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    const a = api()
    renderApp(a)
    await waitFor(() => expect(card('fresh')).toBeTruthy())
    expect(within(card('fresh')).queryByRole('button', { name: 'Inspect with network' })).toBeNull()

    fireEvent.click(within(card('fresh')).getByRole('button', { name: 'Inspect' }))
    fireEvent.click(within(card('fresh')).getByRole('button', { name: 'Run and inspect' })) // the launch was shown; confirm
    const withNetwork = await waitFor(() => within(card('fresh')).getByRole('button', { name: 'Inspect with network' }), { timeout: 15_000 })
    expect(withNetwork.getAttribute('title')).toMatch(/risk/i)
    expect(screen.getByText(/cannot download the package/)).toBeTruthy()

    fireEvent.click(withNetwork)
    // it runs the program too: the dialog says so, with the network risk
    expect(within(card('fresh')).getByRole('dialog').textContent).toMatch(/may reach the network/)
    const shown = (await a.service.server('fresh')).server.launch_hash
    const withNet = `serverAction fresh inspect {"network":true,"hash":"${shown}"}`
    expect(a.calls).not.toContain(withNet)
    fireEvent.click(within(card('fresh')).getByRole('button', { name: 'Run and inspect' }))
    await waitFor(() => expect(a.calls).toContain(withNet))
    await waitFor(() => expect(card('fresh').querySelector('[data-tool="fresh:read_file"]')).toBeTruthy(), { timeout: 15_000 })
    expect(within(card('fresh')).queryByRole('button', { name: 'Inspect with network' })).toBeNull()
  }, 40_000)

  it('another failure (the core did not answer) does not offer it', async () => {
    const a = api()
    renderApp(a)
    await waitFor(() => expect(card('fresh')).toBeTruthy())
    a.failNext('serverAction', new ApiError('unreachable', 'Cannot reach Toolgate (connection refused).', 0))
    fireEvent.click(within(card('fresh')).getByRole('button', { name: 'Inspect' }))
    fireEvent.click(within(card('fresh')).getByRole('button', { name: 'Run and inspect' }))
    await waitFor(() => expect(screen.getByText(/Cannot reach Toolgate/)).toBeTruthy())
    expect(within(card('fresh')).queryByRole('button', { name: 'Inspect with network' })).toBeNull()
  })
})
