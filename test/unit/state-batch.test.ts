// The state store's batched writes (StateStore.update with `batch`: a start's tool baselines, one per
// server as each connects): they join one write instead of one each, and what is acknowledged is on
// disk. A change without `batch` and settle() write what waits at once. A batch that waits never
// holds the process open; a stop of the core writes it.
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { describe, expect, it, vi } from 'vitest'
import { StateStore } from '../../src/main/core/state/store'
import { stateSchema } from '../../src/main/core/state/schema'
import { makeFixture, tmpDir, tool } from '../helpers/catalog-fixture'
import { ingestTools } from '../../src/main/core/catalog/decisions'
import { LastCatalogWriter, readLastCatalog } from '../../src/main/core/state/last-catalog'
import type { Logger } from '../../src/main/core/log'

const onDisk = (file: string) => stateSchema().parse(JSON.parse(fs.readFileSync(file, 'utf8')))
const sha = (text: string) => createHash('sha256').update(text).digest('hex')
const turn = () => new Promise((r) => setImmediate(r))

describe('batched state writes', () => {
  it('changes made over several turns with `batch` land in one write, each acknowledged only once it is on disk', async () => {
    const file = path.join(tmpDir(), 'state.json')
    const store = new StateStore(file)
    await store.update((s) => {
      s.servers.first = { baseline_taken: true }
    })
    const before = fs.readFileSync(file, 'utf8')
    const acked: string[] = []
    const all: Promise<void>[] = []
    for (let i = 0; i < 10; i++) {
      const name = `s${i}`
      all.push(
        store
          .update(
            (s) => {
              s.servers[name] = { baseline_taken: true }
            },
            { batch: true },
          )
          .then(() => {
            // acknowledged: on disk now
            if (onDisk(file).servers[name]?.baseline_taken) acked.push(name)
          }),
      )
      await turn()
    }
    await Promise.all(all)
    expect(acked).toHaveLength(10)
    // one write after the one before them: the file names that one as its predecessor (tamper chain)
    expect(onDisk(file).prev_sha256).toBe(sha(before))
    expect(fs.readFileSync(lastGood(file), 'utf8')).toBe(fs.readFileSync(file, 'utf8'))
  })

  it('a batched change that nobody waits on still reaches disk by itself', async () => {
    const file = path.join(tmpDir(), 'state.json')
    const store = new StateStore(file)
    void store.update(
      (s) => {
        s.servers.lonely = { baseline_taken: true }
      },
      { batch: true },
    )
    const deadline = Date.now() + 10_000
    while (!(fs.existsSync(file) && onDisk(file).servers.lonely?.baseline_taken) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(onDisk(file).servers.lonely).toEqual({ baseline_taken: true })
  })

  it("a change without `batch` (the user's decision) is written at once and takes the waiting changes along; they are acknowledged with it", async () => {
    const file = path.join(tmpDir(), 'state.json')
    const store = new StateStore(file)
    let batchedDone = false
    void store
      .update(
        (s) => {
          s.servers.baseline = { baseline_taken: true }
        },
        { batch: true },
      )
      .then(() => (batchedDone = true))
    await store.update((s) => {
      s.tools['gh:delete_repo'] = { user_disabled: true }
    })
    const disk = onDisk(file)
    expect(disk.tools['gh:delete_repo']).toEqual({ user_disabled: true })
    expect(disk.servers.baseline).toEqual({ baseline_taken: true })
    await turn()
    expect(batchedDone).toBe(true)
  })

  it('settle() (a stop) writes what waits for a batch at once', async () => {
    const file = path.join(tmpDir(), 'state.json')
    const store = new StateStore(file)
    void store.update(
      (s) => {
        s.servers.late = { baseline_taken: true }
      },
      { batch: true },
    )
    await store.settle()
    expect(onDisk(file).servers.late).toEqual({ baseline_taken: true })
  })

  it("a batch that waits does not hold the process open (its timer is unref'd), and is still written when nobody stops the store", async () => {
    const file = path.join(tmpDir(), 'state.json')
    const store = new StateStore(file)
    // what keeps Node's event loop alive: a ref'd timer is a "Timeout" here, an unref'd one is not
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const before = timers()
    const written = store.update(
      (s) => {
        s.servers.pending = { baseline_taken: true }
      },
      { batch: true },
    )
    expect(timers()).toBe(before)
    expect(fs.existsSync(file)).toBe(false) // it waits for others to join
    await written
    expect(onDisk(file).servers.pending).toEqual({ baseline_taken: true })
  })

  it("the core's stop writes a batch that waits, without waiting for the batch's time", async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', args: ['gh.js'], quarantined: false } } })
    // the batch's own timer never fires here: only the stop can write it
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      void ingestTools(fx.catalog, 'gh', [tool('list_repos', 'List repositories')], { batch: true })
      await turn()
      expect(fs.existsSync(fx.statePath) ? onDisk(fx.statePath).servers.gh?.baseline_taken : undefined).toBeUndefined()
      await fx.core.stop()
    } finally {
      vi.useRealTimers()
    }
    expect(onDisk(fx.statePath).servers.gh?.baseline_taken).toBe(true)
    expect(onDisk(fx.statePath).tools['gh:list_repos']?.approved?.description).toBe('List repositories')
  })

  it("a server's baseline taken with `batch` survives a restart of the store, with its tools approved", async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', args: ['gh.js'], quarantined: false } } })
    await ingestTools(fx.catalog, 'gh', [tool('list_repos', 'List repositories')], { batch: true })
    const again = new StateStore(fx.catalog.store.file)
    expect(again.current.servers.gh?.baseline_taken).toBe(true)
    expect(again.current.tools['gh:list_repos']?.approved?.description).toBe('List repositories')
  })

  it('catalog.json is never ahead of the state: it is written once the baselines of the servers it shows are on disk', async () => {
    // (a catalog.json showing servers that ran beside a state without their baselines is taken for a state emptied behind Toolgate's back)
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', args: ['gh.js'], quarantined: false } } })
    const warnings: string[] = []
    const writer = new LastCatalogWriter(fx.dir, fx.catalog, { warn: (_o: unknown, m: string) => warnings.push(m) } as unknown as Logger)
    void ingestTools(fx.catalog, 'gh', [tool('list_repos', 'List repositories')], { batch: true })
    await writer.flush()
    expect(readLastCatalog(fx.dir)?.servers.gh?.source).toBe('upstream')
    expect(onDisk(fx.statePath).servers.gh?.baseline_taken).toBe(true)
    expect(onDisk(fx.statePath).tools['gh:list_repos']?.approved).toBeDefined()
    await writer.close()
    expect(warnings).toEqual([])
  })
})

function lastGood(file: string): string {
  return path.join(path.dirname(file), 'state.last-good.json')
}
