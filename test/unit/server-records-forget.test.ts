// A server an agent removed (or re-added for review) loses the approvals of its resource templates,
// as of its tools and prompts, while a template the user rejected stays rejected: an agent must not
// shed a rejection by removing and re-adding a server. Real catalog and state store over temp files.
import { describe, expect, it } from 'vitest'
import { forgetRemovedServer, markNeedsReview } from '../../src/main/core/catalog/server-decisions'
import { makeFixture } from '../helpers/catalog-fixture'

const cfg = { mcpServers: { a: { command: 'node', args: ['a.js'], quarantined: false }, b: { command: 'node', args: ['b.js'], quarantined: false } } }
const approved = { hash: 'h-approved', name: 'note', description: 'A note.' }
const rejection = { hash: 'h-bad', at: '2026-11-28T06:00:00.000Z' }

async function seed(fx: ReturnType<typeof makeFixture>): Promise<void> {
  await fx.catalog.decide(['a', 'b'], (s) => {
    s.resource_templates = {
      'a:file:///notes/{id}.md': { approved },
      'a:file:///bad/{x}': { rejected: [rejection] },
      'b:file:///notes/{id}.md': { approved },
    }
  })
}

describe.each([
  ['forgetRemovedServer', forgetRemovedServer],
  ['markNeedsReview', markNeedsReview],
] as const)('%s', (_name, forget) => {
  it("drops the server's template approvals, keeps its rejections and leaves other servers alone", async () => {
    const fx = makeFixture(cfg)
    await seed(fx)
    await forget(fx.catalog, 'a')
    const t = fx.catalog.store.current.resource_templates ?? {}
    expect(t['a:file:///notes/{id}.md']).toBeUndefined()
    expect(t['a:file:///bad/{x}']).toEqual({ rejected: [rejection] })
    expect(t['b:file:///notes/{id}.md']).toEqual({ approved })
  })
})
