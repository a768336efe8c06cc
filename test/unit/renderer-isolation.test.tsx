// @vitest-environment happy-dom
// A server's isolation in the UI (docs/contract.md §7) against the real control service:
// data-isolated on its container, a badge (isolated / not isolated / remote), its permissions,
// and Inspect with network offered after a real Inspect failed without network.
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { ApiError } from '../../src/shared/api'
import { renderApp } from '../helpers/render-app'
import { permissionsText } from '../../src/main/cli/print'
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
    const a = api()
    renderApp(a)
    await waitFor(() => expect(card('files')).toBeTruthy())
    fireEvent.click(within(card('files')).getByRole('button', { name: 'files' }))
    await waitFor(() => expect(card('files').querySelector('[data-permission="network"]')).toBeTruthy())
    expect(card('files').querySelector('[data-permission="network"]')?.textContent).toBe('off')
    expect(card('files').querySelector('[data-permission="fs_write"]')?.textContent).toBe(`its private temp folder, ${HOME}/.npm, ${HOME}/.cache, /srv/notes`)
    expect(card('files').querySelector('[data-permission="fs_read"]')?.textContent).toBe('/etc/app')
    // what is hidden is said for the sandbox in use, the same in the window and in `servers list`:
    // under bwrap every dot entry of the home (docs/isolation.md), so a server that reads
    // ~/.gitconfig learns from the card that it needs a grant
    const files = (await a.service.servers()).servers.find((s) => s.name === 'files')
    const hidden = card('files').querySelector('[data-permission="hidden"]')?.textContent ?? ''
    if (!files) throw new Error('no server files')
    const line = permissionsText(files)
    if (files?.isolation.mechanism === 'bwrap') {
      for (const text of [hidden, line]) {
        expect(text).toMatch(/home's dot files|hidden file and folder of your home/)
        expect(text).toContain('sandbox.fs_read')
      }
    } else {
      expect(hidden).toContain('~/.ssh')
      expect(line).toContain('credentials and Toolgate data hidden')
    }

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

  it('an Inspect shows that it runs and what it waits for; the offer of the network outlives a reload of the window', async () => {
    // a program that fails to start for want of network after a while, as npx does offline
    const offline = `setTimeout(() => { console.error('npm error request to https://registry.npmjs.org failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org'); process.exit(1) }, 1500)`
    const a = new WorldApi(makeFixture({ mcpServers: { slow: { command: process.execPath, args: ['-e', offline] } } }))
    renderApp(a)
    await waitFor(() => expect(card('slow')).toBeTruthy())
    expect(card('slow').querySelector('[data-inspect-progress]')).toBeNull()
    fireEvent.click(within(card('slow')).getByRole('button', { name: 'Inspect' }))
    fireEvent.click(within(card('slow')).getByRole('button', { name: 'Run and inspect' }))
    const progress = await waitFor(() => card('slow').querySelector('[data-inspect-progress="slow"]') as HTMLElement)
    expect(progress.getAttribute('role')).toBe('status')
    expect(progress.textContent).toMatch(/^Inspecting: starting node in the sandbox and waiting for its list of tools… \d+ s \(gives up after 30 s\)$/)
    // it ends: no progress, the offer of the network
    await waitFor(() => within(card('slow')).getByRole('button', { name: 'Inspect with network' }), { timeout: 15_000 })
    expect(card('slow').querySelector('[data-inspect-progress]')).toBeNull()
    // a reload of the window (a new store, the same core): the offer stays
    cleanup()
    renderApp(a)
    await waitFor(() => expect(card('slow')).toBeTruthy())
    await waitFor(() => within(card('slow')).getByRole('button', { name: 'Inspect with network' }))
    expect((await a.service.server('slow')).server.inspect?.offline_failure).toMatch(/Inspect with network/)
    // an edit of the launch starts over: the offer was about the old one
    a.world.writeConfig({ mcpServers: { slow: { command: process.execPath, args: ['-e', offline, 'edited'] } } })
    await waitFor(() => expect(within(card('slow')).queryByRole('button', { name: 'Inspect with network' })).toBeNull())
  }, 30_000)

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
