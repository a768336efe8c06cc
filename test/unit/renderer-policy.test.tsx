// @vitest-environment happy-dom
// The window under an organisation policy, against the real control service
// over a real catalog with the policy applied: a tool the policy denies says "set by your
// organisation" and has no control; a server it blocks has no Enable, Inspect or Approve and says
// why; a server it holds has no Approve; the edit form shows what it sets, read-only; an invalid
// policy is a banner.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { WorldApi } from '../helpers/world-api'
import { makeFixture, READ, DESTRUCTIVE, runServer, tool } from '../helpers/catalog-fixture'
import { applyPolicy, readPolicy } from '../../src/main/core/config/policy'

afterEach(cleanup)

const card = (name: string) => document.querySelector(`[data-server="${name}"]`) as HTMLElement
const row = (id: string) => document.querySelector(`[data-tool="${id}"]`) as HTMLElement

async function policyWorld(policy: unknown) {
  const fx = makeFixture({
    mcpServers: {
      gh: { command: 'node', args: ['gh.js'], quarantined: false, enabled_tools: ['list_repos', 'delete_repo'] },
      rogue: { command: 'bash', args: ['-c', 'id'], quarantined: false },
      held: { command: 'node', args: ['held.js'], quarantined: false },
    },
  })
  await runServer(fx, 'gh', [
    tool('list_repos', 'List repositories', { annotations: READ }),
    tool('delete_repo', 'Delete a repository', { annotations: DESTRUCTIVE }),
  ])
  const file = path.join(fx.dir, 'policy.json')
  fs.writeFileSync(file, typeof policy === 'string' ? policy : JSON.stringify(policy))
  fx.catalog.setConfig(applyPolicy(fx.catalog.currentConfig, readPolicy({ file, from: 'env' })))
  return new WorldApi(fx)
}

const POLICY = {
  mcpServers: { gh: { disabled_tools: ['delete_repo'], confirm: 'write' }, held: { quarantined: true } },
  allowed_commands: ['node'],
}

describe('the window under an organisation policy', () => {
  it('a tool the policy denies: "set by your organisation", no control', async () => {
    const { store } = renderApp(await policyWorld(POLICY))
    await waitFor(() => expect(card('gh')).toBeTruthy())
    store.getState().setExpanded('gh', true)
    await waitFor(() => expect(row('gh:delete_repo')).toBeTruthy())
    const r = row('gh:delete_repo')
    expect(r.getAttribute('data-status')).toBe('disabled_by_config')
    expect(r.textContent).toContain('set by your organisation')
    expect(r.querySelector('[data-policy="organisation"]')?.textContent).toMatch(/ask your organisation's administrators/)
    expect(within(r).queryByRole('button')).toBeNull()
    expect(card('gh').querySelector('.server-meta [data-policy="organisation"]')?.textContent).toBe('set by your organisation')
  })

  it('a server the policy blocks: why, and no Enable, Inspect or Approve; a server it holds: no Approve', async () => {
    renderApp(await policyWorld(POLICY))
    await waitFor(() => expect(card('rogue')).toBeTruthy())
    const rogue = within(card('rogue'))
    for (const name of ['Enable server', 'Inspect', 'Approve server']) expect(rogue.queryByRole('button', { name })).toBeNull()
    expect(card('rogue').querySelector('.notice[data-policy="organisation"]')?.textContent).toMatch(/the command "bash" is not in allowed_commands/)
    expect(card('rogue').textContent).toContain('blocked by your organisation')
    const held = within(card('held'))
    expect(held.queryByRole('button', { name: 'Approve server' })).toBeNull()
    expect(card('held').textContent).toMatch(/Held in quarantine: set by your organisation/)
  })

  it('the edit form shows what the organisation sets, read-only', async () => {
    renderApp(await policyWorld(POLICY))
    await waitFor(() => expect(card('gh')).toBeTruthy())
    fireEvent.click(within(card('gh')).getByRole('button', { name: 'Edit server' }))
    const section = await screen.findByRole('region', { name: 'Set by your organisation' })
    expect(section.textContent).toContain('disabled_tools')
    expect(section.textContent).toContain('["delete_repo"]')
    expect(section.textContent).toContain('"write"')
    expect(within(section).queryByRole('textbox')).toBeNull()
  })

  it('an invalid policy file: a banner says no server runs until it is fixed', async () => {
    renderApp(await policyWorld('{"allowed_commands": ['))
    const banner = await waitFor(() => {
      const b = document.querySelector('[data-banner="policy-error"]')
      expect(b).toBeTruthy()
      return b as HTMLElement
    })
    expect(banner.textContent).toMatch(/no server runs until it is fixed/)
    expect(banner.textContent).toMatch(/not valid JSON/)
  })
})
