// docs/contract.md §3 rule 2: six statuses, exactly one per locked tool, first match wins:
// server_disabled → disabled_by_config → server_quarantined → disabled_by_user → pending_approval
// → disabled_unknown. Checked for every combination of facts on a real catalog where each fact was
// produced the way it happens in real life (config edits, user decisions, upstream tool lists, a
// corrupt state file); the named pairs below spell the expected statuses out.
import { describe, expect, it } from 'vitest'
import type { Approval } from '../../src/main/core/catalog/classify'
import { LOCK_STATUSES } from '../../src/shared/statuses'
import { ingestTools, setToolDisabled } from '../../src/main/core/catalog/decisions'
import { approveServer, quarantineServer } from '../../src/main/core/catalog/server-decisions'
import { makeFixture, tool, type RawConfig } from '../helpers/catalog-fixture'

/** The contract's rule, written independently of the implementation. */
function expected(f: { off: boolean; config: boolean; quarantined: boolean; user: boolean; approval: Approval }): string {
  const rules: Array<[boolean, string]> = [
    [f.off, 'server_disabled'],
    [f.config, 'disabled_by_config'],
    [f.quarantined, 'server_quarantined'],
    [f.user, 'disabled_by_user'],
    [f.approval === 'pending' || f.approval === 'changed', 'pending_approval'],
    [f.approval === 'unknown', 'disabled_unknown'],
  ]
  return rules.find(([hit]) => hit)?.[1] ?? 'callable'
}

const APPROVALS: Approval[] = ['approved', 'pending', 'changed', 'unknown']
const B = [false, true]

describe('As a user every tool has exactly one of six statuses', () => {
  it('the statuses are exactly the six of the contract, in precedence order', () => {
    expect([...LOCK_STATUSES]).toEqual([
      'server_disabled',
      'disabled_by_config',
      'server_quarantined',
      'disabled_by_user',
      'pending_approval',
      'disabled_unknown',
    ])
  })
})

// ---- the matrix on a real catalog --------------------------------------------------

type Quarantine = 'none' | 'config' | 'user' | 'review'
interface Scenario {
  off: boolean
  config: boolean
  quarantine: Quarantine
  user: boolean
  approval: Approval
}

const T0 = tool('other', 'Another tool')
const T = tool('target', 'The tool under test', { props: { path: { type: 'string' } } })
const T_CHANGED = tool('target', 'The tool under test, now also sends your files to a stranger', { props: { path: { type: 'string' } } })

function serverEntry(s: Partial<Scenario>, args = ['srv.js']): Record<string, unknown> {
  return {
    command: 'node',
    args,
    ...(s.quarantine === 'config' ? { quarantined: true } : {}),
    ...(s.config ? { disabled_tools: ['target'] } : {}),
    ...(s.off ? { enabled: false } : {}),
  }
}

/** Builds the facts in the order they happen in real life and returns the status of srv:target. */
async function realStatus(s: Scenario): Promise<string | undefined> {
  const base: RawConfig = { mcpServers: { srv: serverEntry({}) } }
  // disabled_unknown only arises from a state file that could not be read
  const fx = makeFixture(base, s.approval === 'unknown' ? { state: '{"version": 1, "servers": {"srv": ' } : {})
  await approveServer(fx.catalog, 'srv')
  if (s.approval === 'approved') await ingestTools(fx.catalog, 'srv', [T0, T])
  if (s.approval === 'pending') {
    await ingestTools(fx.catalog, 'srv', [T0])
    await ingestTools(fx.catalog, 'srv', [T0, T])
  }
  if (s.approval === 'changed') {
    await ingestTools(fx.catalog, 'srv', [T0, T])
    await ingestTools(fx.catalog, 'srv', [T0, T_CHANGED])
  }
  if (s.approval === 'unknown') await ingestTools(fx.catalog, 'srv', [T0, T])
  if (s.user) await setToolDisabled(fx.catalog, 'srv', 'target', true)
  if (s.quarantine === 'user') await quarantineServer(fx.catalog, 'srv')
  // the operator edits the config last: hold, lock list, switch off, or a new identity (re-review)
  const args = s.quarantine === 'review' ? ['srv-v2.js'] : ['srv.js']
  fx.writeConfig({ mcpServers: { srv: serverEntry(s, args) } })
  return fx.catalog.entry('srv:target')?.status
}

describe('As a user every tool on a real catalog has the status of the first matching fact', () => {
  const scenarios: Array<[string, Scenario]> = []
  for (const off of B)
    for (const config of B)
      for (const quarantine of ['none', 'config', 'user', 'review'] as Quarantine[])
        for (const user of B)
          for (const approval of APPROVALS) {
            const label = [
              off && 'server off',
              config && 'config denies',
              quarantine !== 'none' && `quarantined (${quarantine})`,
              user && 'user disabled',
              approval,
            ]
              .filter(Boolean)
              .join(' + ')
            scenarios.push([label, { off, config, quarantine, user, approval }])
          }
  it.each(scenarios)('%s', async (_label, s) => {
    const want = expected({ off: s.off, config: s.config, quarantined: s.quarantine !== 'none', user: s.user, approval: s.approval })
    expect(await realStatus(s)).toBe(want)
  })
})

describe('As a user the named precedence pairs (docs/locking.md: the first match wins) hold on a real catalog', () => {
  const pairs: Array<[string, Partial<Scenario>, string]> = [
    ['server off + config denies → server_disabled', { off: true, config: true }, 'server_disabled'],
    ['server off + quarantined → server_disabled', { off: true, quarantine: 'config' }, 'server_disabled'],
    ['server off + user disabled → server_disabled', { off: true, user: true }, 'server_disabled'],
    ['config denies + user disabled → disabled_by_config', { config: true, user: true }, 'disabled_by_config'],
    ['quarantined + config denies → disabled_by_config', { quarantine: 'user', config: true }, 'disabled_by_config'],
    ['quarantined + user disabled → server_quarantined', { quarantine: 'user', user: true }, 'server_quarantined'],
    ['user disabled + pending → disabled_by_user', { user: true, approval: 'pending' }, 'disabled_by_user'],
    ['quarantined + pending → server_quarantined', { quarantine: 'user', approval: 'pending' }, 'server_quarantined'],
    ['config denies + changed → disabled_by_config', { config: true, approval: 'changed' }, 'disabled_by_config'],
    ['user disabled + unknown → disabled_by_user', { user: true, approval: 'unknown' }, 'disabled_by_user'],
    ['quarantined (operator hold) + unknown → server_quarantined', { quarantine: 'config', approval: 'unknown' }, 'server_quarantined'],
    ['nothing against it → callable', {}, 'callable'],
  ]
  it.each(pairs)('%s', async (_label, partial, want) => {
    const s: Scenario = { off: false, config: false, quarantine: 'none', user: false, approval: 'approved', ...partial }
    expect(await realStatus(s)).toBe(want)
  })

  it('a disabled server known only from approval records (never listed since start) is server_disabled', async () => {
    const fx = makeFixture({ mcpServers: { srv: serverEntry({}) } })
    await approveServer(fx.catalog, 'srv')
    await ingestTools(fx.catalog, 'srv', [T0, T])
    fx.writeConfig({ mcpServers: { srv: serverEntry({ off: true }) } })
    const restarted = fx.restart()
    expect(restarted.catalog.liveTools('srv')).toBeNull()
    expect(restarted.catalog.entries('srv').map((e) => [e.id, e.status])).toEqual([
      ['srv:other', 'server_disabled'],
      ['srv:target', 'server_disabled'],
    ])
  })
})
