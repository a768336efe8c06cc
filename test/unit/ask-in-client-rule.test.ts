// The one rule of the ask_in_client switch (shared/ask-in-client.ts) and its key in policy.json:
// the organisation's "no" beats the operator's config, which beats the user's switch, which beats
// the default (off); an unusable policy file forbids it (fail closed).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { askInClientOf, organisationAllowsAskInClient } from '../../src/shared/ask-in-client'
import { applyPolicy, readPolicy } from '../../src/main/core/config/policy'
import { parseConfig } from '../../src/main/core/config/load'

useCleanup()

const org = (ask_in_client?: boolean | string[], error: string | null = null) => ({
  file: '/etc/toolgate/policy.json',
  error,
  ...(ask_in_client !== undefined ? { ask_in_client } : {}),
})

describe('askInClientOf', () => {
  it('off by default, then the user decides', () => {
    expect(askInClientOf('a', undefined, undefined, undefined)).toEqual({ on: false, source: 'default', locked: false })
    expect(askInClientOf('a', undefined, true, undefined)).toEqual({ on: true, source: 'user', locked: false })
    expect(askInClientOf('a', undefined, false, org(true))).toEqual({ on: false, source: 'user', locked: false })
  })

  it('the config sets it either way and locks it, over the user', () => {
    expect(askInClientOf('a', false, true, undefined)).toMatchObject({ on: false, source: 'config', locked: true })
    expect(askInClientOf('a', true, false, org(['a']))).toMatchObject({ on: true, source: 'config', locked: true })
  })

  it('the organisation forbids it over everything: false, a list without the agent, an unusable file', () => {
    for (const o of [org(false), org(['b']), org(undefined, 'not valid JSON')]) {
      expect(askInClientOf('a', true, true, o)).toMatchObject({
        on: false,
        source: 'organisation',
        locked: true,
        note: expect.stringMatching(/set by your organisation/),
      })
    }
    expect(organisationAllowsAskInClient(org(['a', 'b']), 'b')).toBe(true)
    expect(organisationAllowsAskInClient(org(['a']), 'A')).toBe(false)
  })
})

describe('ask_in_client in policy.json', () => {
  const file = (content: unknown): string => {
    const f = path.join(tempDir('tg-ask-policy-'), 'policy.json')
    fs.writeFileSync(f, JSON.stringify(content))
    return f
  }

  it('reaches the effective config; a bad value makes the policy unusable (every agent then off)', () => {
    const user = parseConfig('mcp_config.json', { agents: [{ name: 'a', ask_in_client: true }] })
    const good = applyPolicy(user, readPolicy({ file: file({ ask_in_client: ['b'] }), from: 'env' }))
    expect(good.organisation?.ask_in_client).toEqual(['b'])
    expect(askInClientOf('a', true, undefined, good.organisation).on).toBe(false)
    const bad = readPolicy({ file: file({ ask_in_client: 'yes' }), from: 'env' })
    expect(bad?.error).toMatch(/ask_in_client must be true, false or a list of agent names/)
    expect(askInClientOf('a', true, true, applyPolicy(user, bad).organisation).on).toBe(false)
  })
})
