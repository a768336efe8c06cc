// state.json's schema is built for each read and not kept (src/main/core/state/schema.ts; docs/performance.md, memory):
// loading the module builds no schema, each read builds its own, and the store still refuses a
// state file its schema refuses (fails closed) and reads back what it wrote.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { cleanupTemp, tempDir } from '../helpers/cli'
import { zodBuilds as counter } from '../helpers/counting-zod'

/** zod's `z` with its lower-case builders counting their calls (helpers/counting-zod.ts). */
vi.mock('zod', async (importOriginal) => (await import('../helpers/counting-zod')).countingZod(importOriginal))

afterAll(cleanupTemp)

describe("state.json's schema", () => {
  it('is not built when its module loads, and each read builds its own (none kept)', async () => {
    await import('../../src/shared/call-variant')
    const before = counter.n
    const { stateSchema, emptyState } = await import('../../src/main/core/state/schema')
    expect(counter.n - before).toBe(0)
    let n = counter.n
    const a = stateSchema()
    const one = counter.n - n
    expect(one).toBeGreaterThan(50)
    n = counter.n
    const b = stateSchema()
    expect(counter.n - n).toBe(one)
    expect(b).not.toBe(a)
    // the same checks either way
    expect(a.parse(emptyState())).toEqual(b.parse(emptyState()))
    expect(a.safeParse({ version: 3 }).success).toBe(false)
    expect(b.safeParse({ version: 2, servers: { s: { user_quarantined: 'yes' } } }).success).toBe(false)
  })

  it('a store reads back what it wrote, and fails closed on a file the schema refuses', async () => {
    const { StateStore } = await import('../../src/main/core/state/store')
    const dir = tempDir('toolgate-state-per-read-')
    const file = path.join(dir, 'state.json')
    const store = new StateStore(file)
    await store.update((s) => {
      s.servers.gh = { user_quarantined: true }
    })
    expect(new StateStore(file).current.servers.gh?.user_quarantined).toBe(true)
    fs.writeFileSync(file, JSON.stringify({ version: 2, servers: { gh: { user_quarantined: 'yes' } } }))
    const reread = new StateStore(file).current
    expect(reread.fail_closed).toBeDefined()
  })
})
