// @vitest-environment happy-dom
// One definition of "waiting for approval" on every surface: a server waiting for the user's
// first review and every new or changed tool count; an operator hold (quarantined:true) and a
// server the user put back into quarantine do not. Checked on the control API's status, the UI
// header (the real app over the real ControlService) and the tray, all over one real catalog.
import { afterEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', () => import('../helpers/fake-electron'))
import { cleanup, render, screen, waitFor } from '@testing-library/react'
import { App } from '../../src/renderer/components/App'
import { StoreProvider } from '../../src/renderer/store/context'
import { createAppStore } from '../../src/renderer/store/store'
import { tooltipFor } from '../../src/main/electron/tray'
import { summarizeServers } from '../../src/shared/summary'
import { quarantineServer } from '../../src/main/core/catalog/server-decisions'
import { makeFixture, runServer, tool } from '../helpers/catalog-fixture'

afterEach(cleanup)

async function world() {
  const fx = makeFixture({
    mcpServers: {
      // the operator holds it: not the user's to approve
      held: { command: 'node', args: ['held.js'], quarantined: true },
      // never approved: waits for the user's review
      fresh: { command: 'node', args: ['fresh.js'] },
      // approved, then put back into quarantine by the user: the user's own decision
      shelved: { command: 'node', args: ['shelved.js'] },
      // running, with one tool new since its baseline
      work: { command: 'node', args: ['work.js'], quarantined: false },
    },
  })
  fx.catalog.setLiveTools('held', [tool('held_tool', 'Held')], 'inspect')
  fx.catalog.setLiveTools('fresh', [tool('fresh_tool', 'Fresh')], 'inspect')
  await runServer(fx, 'shelved', [tool('shelved_tool', 'Shelved')])
  await quarantineServer(fx.catalog, 'shelved')
  await runServer(fx, 'work', [tool('old_tool', 'Old')])
  await runServer(fx, 'work', [tool('old_tool', 'Old'), tool('new_tool', 'New')])
  return { fx, svc: fx.core.api }
}

describe('what waits for approval', () => {
  it('GET /api/v1/status counts the server to review and the new tool, not the operator hold nor the user hold', async () => {
    const { svc } = await world()
    const status = await svc.status()
    expect(status.pending_approvals).toBe(2)
    expect(status.servers).toEqual({ total: 4, connected: 0, quarantined: 3, disabled: 0, error: 0 })
  })

  it('the tray says the same number', async () => {
    const { svc } = await world()
    const sum = summarizeServers((await svc.servers()).servers)
    expect(sum.reviewServers).toEqual(['fresh'])
    expect(sum.pendingTools).toEqual({ work: 1 })
    expect(tooltipFor(sum)).toBe('Toolgate — 2 waiting for approval')
  })

  it('the UI header says the same number', async () => {
    const { svc } = await world()
    const store = createAppStore(svc, { refreshDelayMs: 5 })
    render(
      <StoreProvider store={store}>
        <App />
      </StoreProvider>,
    )
    await waitFor(() => expect(screen.getByRole('button', { name: '2 waiting for approval' })).toBeTruthy())
    expect(document.title).toBe('(2) Toolgate')
  })
})
