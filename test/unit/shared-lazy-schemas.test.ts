// The control operations' argument schemas (src/shared/operations.ts) and the API events' schema (src/shared/api-events.ts)
// are built on first use, not when their modules load (docs/performance.md, memory): loading them builds
// nothing, an operation's first call builds its own arguments only and once, the events' type list
// names exactly the schema's events, and an event still reads through the schema.
import { describe, expect, it, vi } from 'vitest'
import { zodBuilds as counter } from '../helpers/counting-zod'

/** zod's `z` with its lower-case builders counting their calls (helpers/counting-zod.ts). */
vi.mock('zod', async (importOriginal) => (await import('../helpers/counting-zod')).countingZod(importOriginal))

/** Loads what operations.ts and api-events.ts import (their own schemas are theirs to build), then counts what loading these two builds. */
async function load() {
  await import('../../src/shared/api')
  await import('../../src/shared/requests')
  await import('../../src/shared/confirmations')
  await import('../../src/shared/questions')
  await import('../../src/shared/activity')
  await import('../../src/shared/agents')
  await import('../../src/shared/grant-for')
  await import('../../src/shared/operation')
  await import('../../src/shared/tool-class')
  await import('../../src/shared/prompts')
  await import('../../src/shared/resources')
  await import('../../src/shared/retrieve')
  const before = counter.n
  const ops = await import('../../src/shared/operations')
  const events = await import('../../src/shared/api-events')
  const sse = await import('../../src/shared/sse')
  return { ops, events, sse, built: counter.n - before }
}

describe('schemas built on first use', () => {
  it('loading the operations table, the API events and the SSE reader builds no schema; a call builds its own arguments once', async () => {
    const { ops, built } = await load()
    // the counting zod counts (so a count of 0 below means something)
    const probe = counter.n
    ;(await import('zod')).z.string()
    expect(counter.n).toBe(probe + 1)
    expect(built).toBe(0)

    let n = counter.n
    expect(ops.ipcArgs('status', [])).toEqual([])
    const status = counter.n - n
    expect(status).toBeGreaterThan(0)
    expect(status).toBeLessThanOrEqual(2)

    n = counter.n
    expect(ops.ipcArgs('serverAction', ['gh', 'approve', { for: '1h' }])).toEqual(['gh', 'approve', { for: '1h' }])
    const first = counter.n - n
    expect(first).toBeGreaterThan(0)
    n = counter.n
    // built once: the same schema answers the second call and a refusal
    expect(ops.ipcArgs('serverAction', ['gh', 'enable'])).toEqual(['gh', 'enable'])
    expect(() => ops.ipcArgs('serverAction', ['gh', 'explode'])).toThrow('action must be one of')
    expect(() => ops.ipcArgs('serverAction', ['gh', 'enable', { for: 'soon' }])).toThrow()
    expect(counter.n - n).toBe(0)
    expect(ops.OPERATIONS.serverAction.args).toBe(ops.OPERATIONS.serverAction.args)
    // the other operations are still unbuilt: building every one now costs far more than the two above
    n = counter.n
    for (const name of ops.OP_NAMES) expect(ops.OPERATIONS[name].args.def.items.length, name).toBe(ops.OPERATIONS[name].names.length)
    expect(counter.n - n).toBeGreaterThan(10 * (status + first))
  })

  it('the event types name exactly the schema’s events, and an event reads through the schema', async () => {
    const { events, sse } = await load()
    const n = counter.n
    expect(sse.frameToEvent({ event: 'tools.changed', data: '{"servers":["gh"]}' })).toEqual({ type: 'tools.changed', data: { servers: ['gh'] } })
    expect(counter.n).toBeGreaterThan(n)
    // a payload the schema refuses asks for everything again
    expect(sse.frameToEvent({ event: 'tools.changed', data: '{"servers":"gh"}' })).toEqual({ type: 'config.reloaded', data: { reconnected: true } })
    expect(sse.frameToEvent({ event: 'nonsense', data: '{}' })).toBeNull()
    const fromSchema = events.apiEventSchema().options.map((o) => o.shape.type.value)
    expect([...events.API_EVENT_TYPES].sort()).toEqual([...fromSchema].sort())
    expect(new Set(events.API_EVENT_TYPES).size).toBe(events.API_EVENT_TYPES.length)
  })
})
