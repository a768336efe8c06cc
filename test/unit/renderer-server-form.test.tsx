// @vitest-environment happy-dom
// The Add / Edit / Remove server dialogs and the Secrets view, over the real control service on a
// temp data dir: what the user types ends up in mcp_config.json (secrets as references, values in
// the store), hidden values stay hidden and kept, operator policy is read-only, Undo restores.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { emptyApi, WorldApi } from '../helpers/world-api'
import { makeFixture } from '../helpers/catalog-fixture'
import { SecretStore } from '../../src/main/core/secrets/store'

afterEach(cleanup)

const CLAUDE_DESKTOP = JSON.stringify({
  mcpServers: {
    github: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_pasted_value_1234567890', LOG_LEVEL: 'info' },
    },
  },
})

const rawServers = (api: WorldApi) => JSON.parse(fs.readFileSync(api.world.configPath, 'utf8')).mcpServers
const dialog = () => screen.getByRole('dialog')

async function openAdd() {
  await waitFor(() => expect(screen.getAllByRole('button', { name: 'Add server' }).length).toBeGreaterThan(0))
  fireEvent.click(screen.getAllByRole('button', { name: 'Add server' })[0])
  return dialog()
}

describe('Add server', () => {
  it('a pasted Claude Desktop snippet fills the form; the token goes to the secret store, the config gets a reference', async () => {
    const api = emptyApi()
    renderApp(api)
    const d = await openAdd()
    fireEvent.change(within(d).getByLabelText('Client snippet'), { target: { value: CLAUDE_DESKTOP } })
    fireEvent.click(within(d).getByRole('button', { name: 'Fill in' }))
    expect((within(d).getByLabelText('Name') as HTMLInputElement).value).toBe('github')
    expect((within(d).getByLabelText('Command') as HTMLInputElement).value).toBe('npx')
    expect((within(d).getByLabelText('Arguments (one per line)') as HTMLTextAreaElement).value).toBe('-y\n@modelcontextprotocol/server-github')
    // the token is offered as a secret (a password field), the log level is not
    expect((within(d).getByLabelText('Keep GITHUB_PERSONAL_ACCESS_TOKEN in the secret store') as HTMLInputElement).checked).toBe(true)
    expect((within(d).getByLabelText('Keep LOG_LEVEL in the secret store') as HTMLInputElement).checked).toBe(false)
    expect((within(d).getByLabelText('Value of GITHUB_PERSONAL_ACCESS_TOKEN') as HTMLInputElement).type).toBe('password')
    fireEvent.click(within(d).getByRole('button', { name: 'Add' }))
    await waitFor(() => expect(within(dialog()).getByRole('button', { name: 'Approve server' })).toBeTruthy())
    expect(within(dialog()).getByRole('button', { name: 'Inspect' })).toBeTruthy()
    expect(rawServers(api).github).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:GITHUB_PERSONAL_ACCESS_TOKEN}', LOG_LEVEL: 'info' },
    })
    expect(new SecretStore({ dataDir: api.world.dir, keychain: null }).get('GITHUB_PERSONAL_ACCESS_TOKEN')).toBe('ghp_pasted_value_1234567890')
    // it waits for review
    await waitFor(() => expect(document.querySelector('[data-server="github"]')?.getAttribute('data-state')).toBe('quarantined'))
    expect(document.body.innerHTML).not.toContain('ghp_pasted_value_1234567890')
  })

  it('shows the loader’s own message when the entry is invalid, and writes nothing', async () => {
    const api = emptyApi()
    renderApp(api)
    const d = await openAdd()
    fireEvent.change(within(d).getByLabelText('Name'), { target: { value: 'web' } })
    fireEvent.click(within(d).getByLabelText('Remote (HTTP)'))
    fireEvent.change(within(d).getByLabelText('URL'), { target: { value: 'not a url' } })
    fireEvent.click(within(d).getByRole('button', { name: 'Add' }))
    await waitFor(() => expect(within(d).getByRole('alert').textContent).toContain('$.mcpServers.web.url: Invalid URL'))
    expect(rawServers(api)).toEqual({})
  })
})

describe('Edit server', () => {
  function heldApi() {
    return new WorldApi(
      makeFixture({
        mcpServers: {
          held: {
            command: 'node',
            args: ['srv.js', '--api-key', 'sk_live_abcdefghijklmnop0123456789'],
            env: { API_TOKEN: 'tok_abcdefghijklmnopqrstuvwxyz0123', REGION: 'eu' },
            quarantined: true,
            disabled_tools: ['drop'],
          },
        },
      }),
    )
  }

  it('hides stored secret values, keeps them on save, shows operator policy read-only with the lock sentence', async () => {
    const api = heldApi()
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server="held"]')).toBeTruthy())
    fireEvent.click(within(document.querySelector('[data-server="held"]') as HTMLElement).getByRole('button', { name: 'Edit server' }))
    const d = dialog()
    await waitFor(() => expect((within(d).getByLabelText('Value of REGION') as HTMLInputElement).value).toBe('eu'))
    const token = within(d).getByLabelText('Value of API_TOKEN') as HTMLInputElement
    expect(token.value).toBe('')
    expect(token.placeholder).toContain('hidden')
    expect(d.innerHTML).not.toContain('tok_abcdefghijklmnopqrstuvwxyz0123')
    expect(d.innerHTML).not.toContain('sk_live_abcdefghijklmnop0123456789')
    const policy = within(d).getByRole('region', { name: 'Operator policy' })
    expect(policy.textContent).toContain('quarantined')
    expect(policy.textContent).toContain('["drop"]')
    expect(policy.textContent).toContain('cannot be changed from Toolgate')
    expect(within(policy).queryByRole('checkbox')).toBeNull()
    expect(within(policy).queryByRole('textbox')).toBeNull()
    fireEvent.change(within(d).getByLabelText('Value of REGION'), { target: { value: 'us' } })
    fireEvent.click(within(d).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(rawServers(api).held).toEqual({
      command: 'node',
      args: ['srv.js', '--api-key', 'sk_live_abcdefghijklmnop0123456789'],
      env: { API_TOKEN: 'tok_abcdefghijklmnopqrstuvwxyz0123', REGION: 'us' },
      quarantined: true,
      disabled_tools: ['drop'],
    })
  })
})

describe('Remove server', () => {
  it('asks first, then Undo in the toast brings it back', async () => {
    const api = new WorldApi(makeFixture({ mcpServers: { memo: { command: 'node', args: ['memo.js'] } } }))
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server="memo"]')).toBeTruthy())
    fireEvent.click(within(document.querySelector('[data-server="memo"]') as HTMLElement).getByRole('button', { name: 'Remove server' }))
    const confirm = screen.getByRole('alertdialog')
    expect(confirm.textContent).toContain('Remove server memo?')
    expect(rawServers(api).memo).toBeTruthy() // nothing happens before the confirmation
    fireEvent.click(within(confirm).getByRole('button', { name: 'Remove' }))
    await waitFor(() => expect(document.querySelector('[data-server="memo"]')).toBeNull())
    expect(rawServers(api).memo).toBeUndefined()
    fireEvent.click(await screen.findByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(document.querySelector('[data-server="memo"]')).toBeTruthy())
    expect(rawServers(api).memo).toEqual({ command: 'node', args: ['memo.js'] })
  })
})

describe('Secrets view', () => {
  it('lists names and users, sets and removes values without ever showing one', async () => {
    const api = new WorldApi(makeFixture({ mcpServers: { gh: { command: 'node', args: ['gh.js'], env: { TOKEN: '${secret:GH_TOKEN}' } } } }))
    renderApp(api)
    await waitFor(() => expect(screen.getByRole('button', { name: 'Secrets' })).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Secrets' }))
    await waitFor(() => expect(document.querySelector('[data-secret="GH_TOKEN"]')?.getAttribute('data-set')).toBe('false'))
    expect(document.querySelector('[data-secret="GH_TOKEN"]')?.textContent).toContain('gh')
    fireEvent.change(screen.getByLabelText('Secret name'), { target: { value: 'GH_TOKEN' } })
    const value = screen.getByLabelText('Secret value') as HTMLInputElement
    expect(value.type).toBe('password')
    fireEvent.change(value, { target: { value: 'ghp_typed_once_0987654321' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save secret' }))
    // the row shows the new state with the core's event; the field is emptied once the save answered
    await waitFor(() => {
      expect(document.querySelector('[data-secret="GH_TOKEN"]')?.getAttribute('data-set')).toBe('true')
      expect(value.value).toBe('')
    })
    expect(document.body.innerHTML).not.toContain('ghp_typed_once_0987654321')
    expect(fs.readFileSync(path.join(api.world.dir, 'secrets.json'), 'utf8')).not.toContain('ghp_typed_once_0987654321')
    fireEvent.click(screen.getByRole('button', { name: 'Remove secret GH_TOKEN' }))
    await waitFor(() => expect(document.querySelector('[data-secret="GH_TOKEN"]')?.getAttribute('data-set')).toBe('false'))
  })
})
