// @vitest-environment happy-dom
// The Agents view's "Ask in its own client" switch, against the real control
// service and state store: off by default, the user turns it on and off (state.json keeps it, and
// the agent's live scope, which the call path asks, follows); the operator's config and the
// organisation's policy show it locked with who decides, and the window offers no way to change it.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'
import { WORLD_CONFIG } from '../helpers/catalog-fixture'
import { applyPolicy, readPolicy } from '../../src/main/core/config/policy'
import { loadConfigFile } from '../../src/main/core/config/load'

afterEach(cleanup)

const agentBox = (name: string) => document.querySelector(`[data-agent="${name}"]`) as HTMLElement
const switchOf = (name: string) => within(agentBox(name)).getByRole('checkbox', { name: 'Ask in its own client' }) as HTMLInputElement

describe('the Agents view: ask in its own client', () => {
  it('off by default; the user turns it on and off, and the agent’s live scope follows', async () => {
    const api = await worldApi()
    api.world.writeConfig({ ...WORLD_CONFIG, agents: [{ name: 'reader', servers: ['gh'], permissions: ['read'] }] })
    const scope = api.world.core.scopeForAgent('reader')
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server]')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Agents' }))
    await waitFor(() => expect(agentBox('reader')).toBeTruthy())
    expect(switchOf('reader').checked).toBe(false)
    expect(switchOf('reader').disabled).toBe(false)
    expect(agentBox('reader').textContent).toMatch(/only where a person reads them/)
    expect(scope.askInClient()).toBe(false)

    fireEvent.click(switchOf('reader'))
    await waitFor(() => expect(agentBox('reader').querySelector('[data-ask-in-client="on"]')).toBeTruthy())
    expect(api.calls).toContain('setAskInClient reader true')
    expect(JSON.parse(fs.readFileSync(api.world.statePath, 'utf8')).agents).toEqual({ reader: { ask_in_client: true } })
    expect(scope.askInClient()).toBe(true)

    fireEvent.click(switchOf('reader'))
    await waitFor(() => expect(agentBox('reader').querySelector('[data-ask-in-client="off"]')).toBeTruthy())
    expect(scope.askInClient()).toBe(false)
  })

  it('locked where the operator’s config or the organisation decides: the reason, no way to change it', async () => {
    const api = await worldApi()
    api.world.writeConfig({
      ...WORLD_CONFIG,
      agents: [
        { name: 'fixed', servers: ['gh'], permissions: ['read'], ask_in_client: true },
        { name: 'barred', servers: ['gh'], permissions: ['read'], ask_in_client: true },
      ],
    })
    const policyFile = path.join(api.world.dir, 'policy.json')
    fs.writeFileSync(policyFile, JSON.stringify({ ask_in_client: ['fixed'] }))
    api.world.catalog.setConfig(applyPolicy(loadConfigFile(api.world.configPath).config, readPolicy({ file: policyFile, from: 'env' })))
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server]')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Agents' }))
    await waitFor(() => expect(agentBox('barred')).toBeTruthy())
    expect(switchOf('fixed')).toMatchObject({ checked: true, disabled: true })
    expect(agentBox('fixed').textContent).toMatch(/Set by the operator in mcp_config\.json/)
    expect(switchOf('barred')).toMatchObject({ checked: false, disabled: true })
    expect(agentBox('barred').textContent).toMatch(/set by your organisation/)
    // the service refuses what the window does not offer
    await expect(api.service.setAskInClient('barred', true)).rejects.toMatchObject({ code: 'ask_in_client_locked', status: 409 })
    await expect(api.service.setAskInClient('fixed', false)).rejects.toMatchObject({ code: 'ask_in_client_locked' })
    await expect(api.service.setAskInClient('nobody', true)).rejects.toMatchObject({ code: 'unknown_agent', status: 404 })
    expect(JSON.parse(fs.readFileSync(api.world.statePath, 'utf8')).agents).toBeUndefined()
  })
})
