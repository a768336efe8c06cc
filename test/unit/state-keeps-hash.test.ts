// The state store keeps the SHA-256 of the text it last wrote or loaded, not the text
// (docs/performance.md, session 11): state.json holds a hash per tool and grows with every server,
// and the text stayed in the heap for as long as Toolgate ran. The hash still chains each write to
// the one before it (prev_sha256) and still tells Toolgate's own write from a change behind its back.
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { StateStore } from '../../src/main/core/state/store'
import { tmpDir } from '../helpers/catalog-fixture'

const sha = (text: string): string => createHash('sha256').update(text).digest('hex')

/** Every string reachable from `root` through own properties (Maps, Sets, arrays, objects), skipping `skip`. */
function stringsIn(root: unknown, skip: Set<unknown>): string[] {
  const out: string[] = []
  const seen = new Set<unknown>()
  const walk = (v: unknown): void => {
    if (typeof v === 'string') return void out.push(v)
    if (v === null || typeof v !== 'object' || seen.has(v) || skip.has(v)) return
    seen.add(v)
    if (v instanceof Map) for (const [k, x] of v) (walk(k), walk(x))
    else if (v instanceof Set) for (const x of v) walk(x)
    else for (const k of Reflect.ownKeys(v)) walk((v as Record<PropertyKey, unknown>)[k])
  }
  walk(root)
  return out
}

describe('the state store and the text of state.json', () => {
  it('keeps no copy of the text it wrote or loaded, only what it parsed', async () => {
    const file = path.join(tmpDir(), 'state.json')
    const store = new StateStore(file)
    await store.update((s) => {
      for (let i = 0; i < 200; i++) s.servers[`server-${i}`] = { baseline_taken: true }
    })
    const text = fs.readFileSync(file, 'utf8')
    expect(text.length).toBeGreaterThan(5000)
    const longest = (s: StateStore): number => Math.max(0, ...stringsIn(s, new Set([s.current])).map((x) => x.length))
    // written: nothing as long as a server's line is kept beside the parsed state
    expect(longest(store)).toBeLessThan(200)
    // loaded
    expect(longest(new StateStore(file))).toBeLessThan(200)
  })

  it('chains each write to the text before it, after a load too', async () => {
    const file = path.join(tmpDir(), 'state.json')
    await new StateStore(file).update((s) => {
      s.servers.a = { baseline_taken: true }
    })
    const first = fs.readFileSync(file, 'utf8')
    const store = new StateStore(file)
    await store.update((s) => {
      s.servers.b = { baseline_taken: true }
    })
    const second = fs.readFileSync(file, 'utf8')
    expect((JSON.parse(second) as { prev_sha256?: string }).prev_sha256).toBe(sha(first))
    await store.update((s) => {
      s.servers.c = { baseline_taken: true }
    })
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as { prev_sha256?: string }).prev_sha256).toBe(sha(second))
  })

  it('tells its own write from a change behind its back', async () => {
    const file = path.join(tmpDir(), 'state.json')
    const store = new StateStore(file)
    await store.update((s) => {
      s.servers.gh = { user_quarantined: true }
    })
    const rewrites: string[] = []
    const stop = store.watchForLoss((f, how) => rewrites.push(`${path.basename(f)} ${how}`))
    try {
      // its own write: no rewrite
      await store.update((s) => {
        s.servers.other = { baseline_taken: true }
      })
      // a change behind its back: written again from memory
      fs.writeFileSync(file, JSON.stringify({ version: 2 }))
      const deadline = Date.now() + 10_000
      while (!rewrites.includes('state.json changed') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(rewrites).toEqual(['state.json changed'])
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).servers.gh).toEqual({ user_quarantined: true })
    } finally {
      await stop()
    }
  })
})
