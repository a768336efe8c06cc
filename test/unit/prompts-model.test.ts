// Prompts, the parts: the names agents see (`<server>__<prompt>`, valid as a slash command
// and as a tool name, unique, mapped back by lookup), the prompt list read from an upstream
// (validated and capped, one bad prompt does not hide the others), the approval hash (every field an
// agent reads, the no-argument text included), the one classifier's order for prompts (baseline
// from an Inspect: a server approved unseen, or while off, takes none), and a
// state.json that lost prompt decisions is not trusted.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { agentNames, MAX_AGENT_NAME } from '../../src/main/core/catalog/agent-names'
import { sanitizePrompts, messagesDigest, MAX_KEPT_MESSAGES_BYTES } from '../../src/main/core/upstream/prompts'
import { promptHash } from '../../src/main/core/state/hash'
import { lostDecisions } from '../../src/main/core/state/tamper'
import { emptyState } from '../../src/main/core/state/schema'
import { ingestPrompts, setPromptDisabled } from '../../src/main/core/catalog/prompt-decisions'
import { makeFixture } from '../helpers/catalog-fixture'
import { approveServer } from '../../src/main/core/catalog/server-decisions'

const LIMITS = { maxTools: 5, maxDescriptionChars: 40, maxResultBytes: 1_000_000 }
const VALID = /^[A-Za-z0-9_-]{1,64}$/

describe('agent-visible names', () => {
  it('are <server>__<name> when that is already a valid name', () => {
    const names = agentNames([
      { id: 'github:summarize', server: 'github', name: 'summarize' },
      { id: 'my-db:run_query', server: 'my-db', name: 'run_query' },
    ])
    expect(names.get('github:summarize')).toBe('github__summarize')
    expect(names.get('my-db:run_query')).toBe('my-db__run_query')
  })

  it('are valid, unique and stable for any names, with a hash where the plain form is not valid or meets another', () => {
    const part = fc.string({ minLength: 1, maxLength: 80 })
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(part, part), { minLength: 1, maxLength: 12, selector: ([s, n]) => `${s}:${n}` }), (pairs) => {
        const refs = pairs.map(([server, name]) => ({ id: `${server}:${name}`, server, name }))
        const names = agentNames(refs)
        const all = [...names.values()]
        for (const n of all) expect(n).toMatch(VALID)
        expect(new Set(all).size).toBe(refs.length)
        // the same set in another order gives the same names
        expect(agentNames([...refs].reverse())).toEqual(names)
      }),
    )
  })

  it('do not let two servers meet on one name (a__b + c and a + b__c)', () => {
    const names = agentNames([
      { id: 'a__b:c', server: 'a__b', name: 'c' },
      { id: 'a:b__c', server: 'a', name: 'b__c' },
    ])
    expect(names.get('a__b:c')).not.toBe(names.get('a:b__c'))
    expect(names.get('a__b:c')).toMatch(/^a__b__c_[0-9a-f]{6}$/)
  })

  it('shorten long names to the limit', () => {
    const long = 'x'.repeat(100)
    const n = agentNames([{ id: `srv:${long}`, server: 'srv', name: long }]).get(`srv:${long}`) as string
    expect(n.length).toBe(MAX_AGENT_NAME)
    expect(n.startsWith('srv__xxx')).toBe(true)
  })
})

describe('a prompt list read from an upstream', () => {
  it('keeps valid prompts, drops invalid ones with a warning, caps text and count', () => {
    const raw = [
      { name: 'ok', description: 'd'.repeat(100), arguments: [{ name: 'a', required: true, description: 'arg' }] },
      { name: '', description: 'no name' },
      { name: 'bad-args', arguments: 'nope' },
      { name: 'ok', description: 'duplicate' },
      { name: 'dup-arg', arguments: [{ name: 'a' }, { name: 'a' }] },
      ...Array.from({ length: 10 }, (_, i) => ({ name: `p${i}` })),
    ]
    const { prompts, warnings } = sanitizePrompts(raw, LIMITS)
    expect(prompts.map((p) => p.name)).toEqual(['ok', 'p0', 'p1', 'p2', 'p3'])
    expect(prompts[0].description.length).toBe(40)
    expect(prompts[0].arguments).toEqual([{ name: 'a', required: true, description: 'arg' }])
    expect(warnings.join(' ')).toMatch(/dropped 4 invalid prompt/)
    expect(warnings.join(' ')).toMatch(/only the first are used/)
  })

  it('keeps the no-argument text for review up to a size, and always its hash', () => {
    const small = messagesDigest([{ role: 'user', content: { type: 'text', text: 'hi' } }])
    expect(small.messages).toHaveLength(1)
    const big = messagesDigest([{ role: 'user', content: { type: 'text', text: 'x'.repeat(MAX_KEPT_MESSAGES_BYTES) } }])
    expect(big.messages).toBeUndefined()
    expect(big.messages_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(big.messages_bytes).toBeGreaterThan(MAX_KEPT_MESSAGES_BYTES)
  })
})

describe('the approval hash of a prompt', () => {
  const base = { name: 'p', description: 'd', arguments: [{ name: 'a' }], messages_hash: 'h1' }
  it('changes with every field an agent reads, the text without arguments included', () => {
    const h = promptHash(base)
    expect(promptHash({ ...base })).toBe(h)
    for (const changed of [
      { ...base, description: 'd2' },
      { ...base, title: 't' },
      { ...base, arguments: [{ name: 'a', required: true }] },
      { ...base, messages_hash: 'h2' },
      { ...base, name: 'q' },
    ])
      expect(promptHash(changed)).not.toBe(h)
  })
})

describe('prompts in the one classifier', () => {
  it('follow the tools’ order: server off, then config, then quarantine, then the user, then approval', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', args: ['s.js'], disabled_prompts: ['locked'] } } })
    const listed = [
      { name: 'a', description: '', arguments: [] },
      { name: 'locked', description: '', arguments: [] },
    ]
    // a quarantined server takes no baseline; its Inspect shows its prompts, and approving it approves those
    await ingestPrompts(fx.catalog, 's', listed)
    expect(fx.catalog.prompts.entry('s:a')?.status).toBe('server_quarantined')
    await fx.catalog.setLivePrompts('s', listed, undefined, { source: 'inspect' })
    await approveServer(fx.catalog, 's')
    await ingestPrompts(fx.catalog, 's', [
      { name: 'a', description: '', arguments: [] },
      { name: 'locked', description: '', arguments: [] },
    ])
    const status = (n: string) => fx.catalog.prompts.entry(`s:${n}`)?.status
    expect([status('a'), status('locked')]).toEqual(['callable', 'disabled_by_config'])
    await ingestPrompts(fx.catalog, 's', [
      { name: 'a', description: '', arguments: [] },
      { name: 'b', description: 'new', arguments: [] },
      { name: 'locked', description: '', arguments: [] },
    ])
    expect(status('b')).toBe('pending_approval')
    await setPromptDisabled(fx.catalog, 's', 'a', true)
    expect(status('a')).toBe('disabled_by_user')
    fx.writeConfig({ mcpServers: { s: { command: 'node', args: ['s.js'], disabled_prompts: ['locked'], enabled: false } } })
    expect([status('a'), status('b'), status('locked')]).toEqual(['server_disabled', 'server_disabled', 'server_disabled'])
  })
})

describe('approving a server', () => {
  const P = (name: string, description = '') => ({ name, description, arguments: [] })
  const status = (fx: ReturnType<typeof makeFixture>, id: string) => fx.catalog.prompts.entry(id)?.status

  it('approves only the prompts its Inspect showed: without one, or listed since, each waits', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', args: ['s.js'] }, u: { command: 'node', args: ['u.js'] } } })
    await fx.catalog.setLivePrompts('s', [P('a')], undefined, { source: 'inspect' })
    expect(status(fx, 's:a')).toBe('server_quarantined')
    await approveServer(fx.catalog, 's')
    await ingestPrompts(fx.catalog, 's', [P('a'), P('b', 'steer')])
    expect([status(fx, 's:a'), status(fx, 's:b')]).toEqual(['callable', 'pending_approval'])
    // u was approved unseen: its first list is no baseline
    await approveServer(fx.catalog, 'u')
    await ingestPrompts(fx.catalog, 'u', [P('c')])
    expect(status(fx, 'u:c')).toBe('pending_approval')
  })

  it('while switched off approves none of its Inspect (the view shows none then)', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', args: ['s.js'], enabled: false } } })
    await fx.catalog.setLivePrompts('s', [P('a')], undefined, { source: 'inspect' })
    expect(fx.catalog.prompts.entries('s')).toEqual([])
    expect(fx.catalog.inspectedPrompts('s')).toBeNull()
    await approveServer(fx.catalog, 's')
    fx.writeConfig({ mcpServers: { s: { command: 'node', args: ['s.js'] } } })
    await ingestPrompts(fx.catalog, 's', [P('a')])
    expect(status(fx, 's:a')).toBe('pending_approval')
  })

  it('trusted in the config, its first list is its baseline', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', args: ['s.js'], quarantined: false } } })
    await ingestPrompts(fx.catalog, 's', [P('a')])
    expect(status(fx, 's:a')).toBe('callable')
    await ingestPrompts(fx.catalog, 's', [P('a'), P('b')])
    expect(status(fx, 's:b')).toBe('pending_approval')
  })
})

describe('a state that lost prompt decisions', () => {
  it('is named as such (approvals, the baseline, the user’s locks)', () => {
    const before = emptyState()
    before.servers.s = { prompt_baseline_taken: true }
    before.prompts['s:a'] = { approved: { hash: 'h', description: '', arguments: [] } }
    before.prompts['s:b'] = { user_disabled: true }
    const lost = lostDecisions(emptyState(), before)
    expect(lost).toEqual(['the baseline of s', '1 prompt approval', 'the locks of 1 prompt'])
  })
})
