// Resource templates, the parts: the approval hash (every field an agent reads, tagged apart from
// prompts), the one classifier's order for templates (baseline from an Inspect, new, changed, rejected, quarantine,
// server off, trust auto, a fail-closed store), and a state.json that lost template decisions is not trusted.
import { describe, expect, it } from 'vitest'
import { templateHash, promptHash } from '../../src/main/core/state/hash'
import { holdsDecisions, lostDecisions } from '../../src/main/core/state/tamper'
import { emptyState } from '../../src/main/core/state/schema'
import { approveTemplate, ingestTemplates, rejectTemplate } from '../../src/main/core/catalog/template-decisions'
import { makeFixture } from '../helpers/catalog-fixture'
import { approveServer } from '../../src/main/core/catalog/server-decisions'
import type { TemplateDefinition } from '../../src/shared/resources'

const T = (uriTemplate: string, description = 'd', more: Partial<TemplateDefinition> = {}): TemplateDefinition => ({
  uriTemplate,
  name: 'n',
  description,
  ...more,
})

describe('the approval hash of a template', () => {
  it('changes with every field an agent reads', () => {
    const base = T('file:///a/{x}', 'd', { title: 't', mimeType: 'text/plain', annotations: { priority: 0.5 }, _meta: { ui: { prefersBorder: true } } })
    const h = templateHash(base)
    expect(templateHash({ ...base })).toBe(h)
    for (const changed of [
      { ...base, uriTemplate: 'file:///b/{x}' },
      { ...base, name: 'm' },
      { ...base, title: 'u' },
      { ...base, description: 'e' },
      { ...base, mimeType: 'text/html' },
      { ...base, annotations: { priority: 0.6 } },
      { ...base, _meta: { ui: { prefersBorder: false } } },
    ])
      expect(templateHash(changed)).not.toBe(h)
  })

  it('never equals a prompt’s of the same words', () => {
    expect(templateHash({ uriTemplate: 'p', name: 'p', description: '' })).not.toBe(promptHash({ name: 'p', description: '', arguments: [] }))
  })
})

describe('templates in the one classifier', () => {
  const status = (fx: ReturnType<typeof makeFixture>, t: string) => fx.catalog.templates.entry(`s:${t}`)?.status

  it('baseline, then new and changed wait; approve and reject are bound to the hash; quarantine and off lock them', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', args: ['s.js'] } } })
    // a quarantined server takes no baseline; its Inspect shows its templates
    await ingestTemplates(fx.catalog, 's', [T('a')])
    expect(status(fx, 'a')).toBe('server_quarantined')
    await fx.catalog.setLiveTemplates('s', [T('a')], undefined, 'inspect')
    // approving it approves exactly what the Inspect showed
    await approveServer(fx.catalog, 's')
    expect(status(fx, 'a')).toBe('callable')
    await ingestTemplates(fx.catalog, 's', [T('a')])
    expect(status(fx, 'a')).toBe('callable')
    await ingestTemplates(fx.catalog, 's', [T('a', 'changed'), T('b')])
    expect([status(fx, 'a'), status(fx, 'b')]).toEqual(['pending_approval', 'pending_approval'])
    const a = fx.catalog.templates.entry('s:a')
    expect(a?.approval).toBe('changed')
    expect(a?.previous?.description).toBe('d')
    expect(fx.catalog.templates.entry('s:b')?.approval).toBe('pending')
    await expect(approveTemplate(fx.catalog, 's', 'a', templateHash(T('a')))).rejects.toMatchObject({ code: 'definition_changed' })
    await approveTemplate(fx.catalog, 's', 'a', templateHash(T('a', 'changed')))
    await rejectTemplate(fx.catalog, 's', 'b', templateHash(T('b')))
    expect([status(fx, 'a'), status(fx, 'b')]).toEqual(['callable', 'disabled_by_user'])
    // what was decided is in state.json
    expect(fx.store.current.resource_templates?.['s:a']?.approved?.description).toBe('changed')
    // a rejected template that changes again asks again
    await ingestTemplates(fx.catalog, 's', [T('a', 'changed'), T('b', 'again')])
    expect(status(fx, 'b')).toBe('pending_approval')
    fx.writeConfig({ mcpServers: { s: { command: 'node', args: ['s.js'], enabled: false } } })
    expect(status(fx, 'a')).toBe('server_disabled')
  })

  it('approving a server approves only the templates its Inspect showed: without one, or listed since, each waits', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', args: ['s.js'] }, u: { command: 'node', args: ['u.js'] } } })
    await fx.catalog.setLiveTemplates('s', [T('a')], undefined, 'inspect')
    await approveServer(fx.catalog, 's')
    await ingestTemplates(fx.catalog, 's', [T('a'), T('b')])
    expect([status(fx, 'a'), status(fx, 'b')]).toEqual(['callable', 'pending_approval'])
    // u was approved unseen: its first list is no baseline
    await approveServer(fx.catalog, 'u')
    await ingestTemplates(fx.catalog, 'u', [T('c')])
    expect(fx.catalog.templates.entry('u:c')?.status).toBe('pending_approval')
  })

  it('trust auto approves new and changed templates', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', args: ['s.js'], trust: 'auto' } } })
    await approveServer(fx.catalog, 's')
    await ingestTemplates(fx.catalog, 's', [T('a')])
    await ingestTemplates(fx.catalog, 's', [T('a', 'changed'), T('b')])
    expect([status(fx, 'a'), status(fx, 'b')]).toEqual(['callable', 'callable'])
  })
})

describe('a state that lost template decisions', () => {
  it('is named as such (approvals, the baseline, rejections), and one holding only template approvals holds decisions', () => {
    const before = emptyState()
    before.servers.s = { template_baseline_taken: true }
    before.resource_templates = { 's:a': { approved: { hash: 'h', name: 'a' } }, 's:b': { rejected: [{ hash: 'x', at: 'now' }] } }
    expect(lostDecisions(emptyState(), before)).toEqual(['the baseline of s', '1 resource template approval', 'the rejections of 1 resource template'])
    const only = emptyState()
    only.resource_templates = { 's:a': { approved: { hash: 'h', name: 'a' } } }
    expect(holdsDecisions(only)).toBe(true)
    expect(holdsDecisions(emptyState())).toBe(false)
  })
})
