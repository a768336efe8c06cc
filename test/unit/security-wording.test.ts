// docs/contract.md §3 rule 5: no surface ever tells the user to toggle a config lock. A
// config lock (enabled_tools/disabled_tools) is operator policy: every text about it says so and
// none offers an enable/re-enable/toggle. Swept over every surface the core has: discovery,
// call rejection, describe_tool, the control service's tool list and 409, server views, labels.
import { beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/api'
import { blockedMessage, LOCK_STATUSES, REMEDIATION, STATUS_LABEL } from '../../src/shared/statuses'
import { CONFIG_LOCK_MESSAGE, setToolDisabled } from '../../src/main/core/catalog/decisions'
import { retrieve } from '../../src/main/core/discovery/retrieve'
import { agentSession, buildWorld, makeFixture, runServer, tool, type Fixture } from '../helpers/catalog-fixture'
import { agentServerEntry, serverInfo } from '../../src/main/core/views/server-view'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { ConnectionStates } from '../../src/main/core/upstream/states'

/** Wording that offers the user a switch. Config key names are not wording and are removed first. */
const TOGGLE = /\b(toggle|re-?enabl\w*|enabl\w*|switch(ed)? (it |this )?(back )?on|turn (it |this )?(back )?on|unlock it|untick|check the box)\b/i
const CONFIG_KEYS = /\b(enabled_tools|disabled_tools)\b/g

function offersToggle(text: string): boolean {
  return TOGGLE.test(text.replace(CONFIG_KEYS, ''))
}

function expectOperatorWording(text: string): void {
  expect(offersToggle(text), `offers a toggle: ${text}`).toBe(false)
  expect(text, text).not.toMatch(/ask the user/i)
  expect(text, text).toMatch(/operator/)
}

let world: Fixture
let allowlist: Fixture
beforeAll(async () => {
  world = await buildWorld()
  allowlist = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false, enabled_tools: ['list_repos'] } } })
  await runServer(allowlist, 'gh', [tool('list_repos', 'List repositories'), tool('delete_repo', 'Delete a repository'), tool('push_code', 'Push code')])
})

describe('As a user, nothing ever tells me to toggle a config lock', () => {
  it('the sweep regex itself catches toggle wording and ignores config key names', () => {
    expect(offersToggle('ask the user to re-enable it')).toBe(true)
    expect(offersToggle('Enable the tool in the tray')).toBe(true)
    expect(offersToggle('toggle the switch')).toBe(true)
    expect(offersToggle('policy in mcp_config.json (enabled_tools/disabled_tools)')).toBe(false)
  })

  it('the disabled_by_config remediation: operator policy, NOT user-overridable, no toggle', () => {
    expectOperatorWording(REMEDIATION.disabled_by_config)
    expect(REMEDIATION.disabled_by_config).toMatch(/mcp_config\.json/)
    expect(REMEDIATION.disabled_by_config).toMatch(/NOT user-overridable/)
  })

  it('the TOOL_BLOCKED (disabled_by_config) message', () => {
    expectOperatorWording(blockedMessage('disabled_by_config'))
  })

  it('the 409 on enabling a config-denied tool, and CONFIG_LOCK_MESSAGE', async () => {
    expectOperatorWording(CONFIG_LOCK_MESSAGE('gh:delete_repo'))
    let err: unknown
    try {
      await setToolDisabled(world.catalog, 'gh', 'delete_repo', false)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ApiError)
    expectOperatorWording((err as ApiError).message)
  })

  it('retrieve_tools: every remediation for config locks, whatever the query, scope or limit', () => {
    let seen = 0
    for (const fx of [world, allowlist]) {
      for (const query of ['delete repository', 'push code', 'repository', 'drop tables', 'delete', 'code']) {
        for (const limit of [1, 3, 100]) {
          const r = retrieve(fx.catalog, { query, limit, include_disabled: true }, FULL_SCOPE)
          const text = r.remediation?.disabled_by_config
          if (text) {
            seen++
            expectOperatorWording(text)
          }
          for (const d of r.disabled ?? []) if (d.status === 'disabled_by_config') expect(offersToggle(d.description ?? '')).toBe(false)
        }
      }
    }
    expect(seen).toBeGreaterThan(0)
  })

  it('retrieve_tools: the notice never suggests enabling anything', () => {
    // only config-locked tools match (list_repos, the callable one, does not)
    const r = retrieve(allowlist.catalog, { query: 'push code' }, FULL_SCOPE)
    expect(r.tools).toEqual([])
    expect(r.notice).toBe('1 relevant tool(s) exist but are locked; retry with include_disabled:true for details and remediation.')
    expect(offersToggle(r.notice!)).toBe(false)
  })

  it('call rejection and describe_tool through the MCP server', async () => {
    for (const [fx, id] of [
      [world, 'gh:delete_repo'],
      [allowlist, 'gh:delete_repo'],
      [allowlist, 'gh:push_code'],
    ] as const) {
      const agent = await agentSession(fx)
      for (const v of ['call_tool_read', 'call_tool_write', 'call_tool_destructive', 'describe_tool']) {
        const r = await agent.text(v, { name: id })
        expect(r.isError).toBe(true)
        expect(r.text.startsWith('TOOL_BLOCKED (disabled_by_config): ')).toBe(true)
        expectOperatorWording(r.text)
      }
    }
  })

  it('the control service tool list: remediation of config-locked tools', async () => {
    let seen = 0
    for (const fx of [world, allowlist]) {
      const svc = fx.core.api
      for (const s of fx.catalog.currentConfig.servers) {
        for (const t of (await svc.tools(s.name)).tools) {
          if (t.status !== 'disabled_by_config') continue
          seen++
          expect(t.remediation).toBeDefined()
          expectOperatorWording(t.remediation!)
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(4) // gh:delete_repo, sketchy:drop_tables, allowlist's two
  })

  it('the control service tool list: a config-locked tool that the user also disabled still reads as operator policy', async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false } } })
    await runServer(fx, 'gh', [tool('delete_repo', 'Delete a repository')])
    await setToolDisabled(fx.catalog, 'gh', 'delete_repo', true)
    fx.writeConfig({ mcpServers: { gh: { command: 'node', quarantined: false, disabled_tools: ['delete_repo'] } } })
    const [t] = (await fx.core.api.tools('gh')).tools
    expect(t.status).toBe('disabled_by_config')
    expectOperatorWording(t.remediation!)
  })

  it('server views (control API servers/status, upstream_servers list/get) carry no toggle wording for config locks', async () => {
    for (const fx of [world, allowlist]) {
      const svc = fx.core.api
      const texts = [
        JSON.stringify(await svc.servers()),
        JSON.stringify(await svc.status()),
        ...fx.catalog.currentConfig.servers.map((s) => JSON.stringify(serverInfo(fx.catalog, new ConnectionStates(), s))),
        ...fx.catalog.currentConfig.servers.map((s) => JSON.stringify(agentServerEntry(fx.catalog, new ConnectionStates(), s, FULL_SCOPE))),
      ]
      const agent = await agentSession(fx)
      texts.push((await agent.text('upstream_servers', { operation: 'list' })).text)
      // "enabled": true/false are state fields, not wording: only free text is swept
      for (const t of texts) {
        const free = t.replace(/"(enabled|config_policy|quarantined)":(true|false)/g, '').replace(CONFIG_KEYS, '')
        expect(offersToggle(free.replace(/"[a-z_]+":/g, '')), free).toBe(false)
      }
    }
  })

  it('the UI label of a config lock is a lock, not a switch', () => {
    expect(offersToggle(STATUS_LABEL.disabled_by_config)).toBe(false)
    expect(STATUS_LABEL.disabled_by_config).toMatch(/config/)
  })

  it('only the user-owned statuses may offer the user an action; the config text is unique to config', () => {
    for (const s of LOCK_STATUSES) {
      if (s === 'disabled_by_config') continue
      expect(REMEDIATION[s]).not.toMatch(/NOT user-overridable/)
      expect(REMEDIATION[s]).not.toBe(REMEDIATION.disabled_by_config)
    }
  })

  it('no surface suggests the CLI enable command for a config-locked tool', async () => {
    const agent = await agentSession(world)
    const surfaces = [
      (await agent.text('call_tool_destructive', { name: 'gh:delete_repo' })).text,
      (await agent.text('retrieve_tools', { query: 'delete repository', include_disabled: true })).text,
      JSON.stringify((await world.core.api.tools('gh')).tools.find((t) => t.name === 'gh:delete_repo')),
    ]
    for (const s of surfaces) {
      expect(s).not.toMatch(/tools enable gh:delete_repo/)
      const r = JSON.parse(s.startsWith('{') ? s : '{}') as { remediation?: unknown }
      if (typeof r.remediation === 'string') expectOperatorWording(r.remediation)
    }
  })
})
