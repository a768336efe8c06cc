// The catalog's snapshot is an immutable view (a later decision builds a new one and never
// changes one already handed out), and every decision changes state.json and the catalog in
// the same step, over a real StateStore in a temp dir.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { setToolDisabled } from '../../src/main/core/catalog/decisions'
import { markNeedsReview } from '../../src/main/core/catalog/server-decisions'
import { makeFixture, READ, runServer, tool } from '../helpers/catalog-fixture'

const trusted = { mcpServers: { a: { command: 'node', args: ['a.js'], quarantined: false }, b: { command: 'node', args: ['b.js'] } } }

describe('catalog snapshot', () => {
  it('a snapshot handed out earlier keeps its statuses after a decision', async () => {
    const fx = makeFixture(trusted)
    await runServer(fx, 'a', [tool('read_it', 'Read it', { annotations: READ }), tool('other', 'Other')])
    const before = fx.catalog.snapshot()
    expect(before.byId.get('a:read_it')?.status).toBe('callable')
    await setToolDisabled(fx.catalog, 'a', 'read_it', true)
    expect(before.byId.get('a:read_it')?.status).toBe('callable')
    expect(before.byServer.get('a')?.find((e) => e.name === 'read_it')?.status).toBe('callable')
    const after = fx.catalog.snapshot()
    expect(after).not.toBe(before)
    expect(after.byId.get('a:read_it')?.status).toBe('disabled_by_user')
    expect([...after.byId.keys()].sort()).toEqual(['a:other', 'a:read_it'])
    expect(after.byId.size).toBe(2)
  })

  it('entries, their facts and the lists cannot be changed by a reader', async () => {
    const fx = makeFixture(trusted)
    await runServer(fx, 'a', [tool('read_it', 'Read it', { annotations: READ })])
    const snap = fx.catalog.snapshot()
    const e = snap.byId.get('a:read_it')!
    expect(() => Object.assign(e, { status: 'callable' })).toThrow(TypeError)
    expect(() => Object.assign(e.facts, { configDenied: false })).toThrow(TypeError)
    expect(() => (snap.byServer.get('a') as unknown as unknown[]).push(e)).toThrow(TypeError)
    expect(() => (snap.nameOnly as unknown as unknown[]).push(e)).toThrow(TypeError)
    // the maps offer only their reading half
    expect('set' in snap.byId).toBe(false)
    expect('delete' in snap.byServer).toBe(false)
    expect(fx.catalog.entry('a:read_it')?.def.description).toBe('Read it')
  })

  it('a decision is visible in the catalog as soon as it is made, and on disk when it resolves', async () => {
    const fx = makeFixture(trusted)
    await runServer(fx, 'a', [tool('read_it', 'Read it', { annotations: READ })])
    const pending = setToolDisabled(fx.catalog, 'a', 'read_it', true)
    expect(fx.catalog.entry('a:read_it')?.status).toBe('disabled_by_user')
    await pending
    const onDisk = JSON.parse(fs.readFileSync(fx.statePath, 'utf8')) as { tools: Record<string, { user_disabled?: boolean }> }
    expect(onDisk.tools['a:read_it'].user_disabled).toBe(true)
  })

  it('marking a server for review quarantines its tools without the caller refreshing anything', async () => {
    const fx = makeFixture(trusted)
    await runServer(fx, 'b', [tool('ping', 'Ping', { annotations: READ })])
    expect(fx.catalog.entry('b:ping')?.status).toBe('callable')
    await markNeedsReview(fx.catalog, 'b')
    expect(fx.catalog.quarantineOf(fx.catalog.serverConfig('b')!)).toBe('review')
    expect(fx.catalog.entry('b:ping')?.status).toBe('server_quarantined')
  })
})
