// The watches of the config file and of the state files through their folders (watch-filter.ts):
// an edit or a loss of one of them is seen, also amid many writes of other files in the same
// folder (the data dir holds the config, catalog.json, the state files and their atomic writes'
// temp files), and those other writes wake nothing.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import writeFileAtomic from 'write-file-atomic'
import { tempDir } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { waitFor } from '../helpers/wait'
import { watchFolders, type FolderWatch } from '../../src/main/core/config/watch-filter'
import { watchConfig, type ConfigWatcher } from '../../src/main/core/config/watch'
import { StateStore } from '../../src/main/core/state/store'
import type { Config } from '../../src/shared/config-schema'

useCleanup()

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function watch(files: string[], o?: { ready?: boolean }): { calls: () => number; w: FolderWatch } {
  let n = 0
  const w = watchFolders(files, () => n++, o)
  closers.push(() => w.close())
  return { calls: () => n, w }
}

/** Other files of the folder written the ways Toolgate and its users write them: appended line by line, atomically (temp file renamed over), removed. */
async function busyFolder(dir: string, rounds = 40): Promise<void> {
  const log = path.join(dir, 'serve.log')
  for (let i = 0; i < rounds; i++) {
    fs.appendFileSync(log, `line ${i}\n`)
    await writeFileAtomic(path.join(dir, 'catalog.json'), JSON.stringify({ i }))
    fs.writeFileSync(path.join(dir, `tmp-${i}`), 'x')
    fs.rmSync(path.join(dir, `tmp-${i}`))
    // names that start like a watched file's are other files too
    fs.writeFileSync(path.join(dir, 'state.json.bak'), String(i))
    fs.writeFileSync(path.join(dir, 'mcp_config.json~'), String(i))
  }
}

describe('watchFolders: the files named, through their folder', () => {
  it('calls back once when ready, then for writes, atomic replaces and removal of the watched file, and for nothing else in the folder', async () => {
    const dir = tempDir('toolgate-fw-')
    const file = path.join(dir, 'state.json')
    fs.writeFileSync(file, '{}')
    const { calls } = watch([file])
    await waitFor(() => calls() === 1, 5000, 'the ready call')
    await busyFolder(dir)
    await sleep(300)
    expect(calls()).toBe(1)

    fs.writeFileSync(file, '{"a":1}')
    await waitFor(() => calls() > 1, 5000, 'an event for an in-place write')
    let before = calls()
    await writeFileAtomic(file, '{"a":2}')
    await waitFor(() => calls() > before, 5000, 'an event for a rename over the file')
    before = calls()
    fs.rmSync(file)
    await waitFor(() => calls() > before, 5000, 'an event for the removal')
    before = calls()
    fs.writeFileSync(file, '{}')
    await waitFor(() => calls() > before, 5000, 'an event for the file made again')
  })

  it('watches several folders at once; `ready: false` makes no first call; after close nothing calls back', async () => {
    const a = tempDir('toolgate-fw-')
    const b = tempDir('toolgate-fw-')
    const fa = path.join(a, 'mcp_config.json')
    const fb = path.join(b, 'policy.json')
    const { calls, w } = watch([fa, fb], { ready: false })
    await sleep(100)
    expect(calls()).toBe(0)
    fs.writeFileSync(fa, '{}')
    await waitFor(() => calls() >= 1, 5000, 'an event in the first folder')
    const before = calls()
    fs.writeFileSync(fb, '{}')
    await waitFor(() => calls() > before, 5000, 'an event in the second folder')
    await w.close()
    const after = calls()
    fs.writeFileSync(fa, '{"x":1}')
    fs.writeFileSync(fb, '{"x":1}')
    await sleep(300)
    expect(calls()).toBe(after)
  })

  it('a folder that does not exist is no error and gives no events; the others are still watched', async () => {
    const dir = tempDir('toolgate-fw-')
    const file = path.join(dir, 'mcp_config.json')
    const { calls } = watch([path.join(dir, 'missing', 'policy.json'), file], { ready: false })
    fs.writeFileSync(file, '{}')
    await waitFor(() => calls() >= 1, 5000, 'an event for the existing folder')
  })
})

describe('the config watcher in a busy folder (the data dir)', () => {
  const open: ConfigWatcher[] = []
  afterEach(async () => {
    for (const w of open.splice(0)) await w.close()
  })

  it('an edit made amid the state, catalog and log writes of the same folder is applied, and those writes reload nothing', async () => {
    const dir = tempDir('toolgate-fw-')
    const file = path.join(dir, 'mcp_config.json')
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'node' } } }))
    const configs: Config[] = []
    const w = watchConfig(file, { onConfig: (c) => configs.push(c), onError: () => {} }, { debounceMs: 20 })
    open.push(w)
    await sleep(100)
    const busy = busyFolder(dir, 60)
    await sleep(30)
    // the user's edit, saved the way many editors save (a temp file renamed over the config)
    await writeFileAtomic(file, JSON.stringify({ mcpServers: { a: { command: 'node' }, b: { command: 'node' } } }))
    await busy
    await waitFor(() => configs.at(-1)?.servers.some((s) => s.name === 'b'), 5000, 'the edit to be applied')
    const applied = configs.length
    await busyFolder(dir, 20)
    await sleep(400)
    expect(configs.length).toBe(applied)
    // and an in-place edit after all that
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { c: { command: 'node' } } }))
    await waitFor(
      () =>
        configs
          .at(-1)
          ?.servers.map((s) => s.name)
          .join() === 'c',
      5000,
      'the second edit to be applied',
    )
  })
})

describe('the state files watched for loss in a busy data dir', () => {
  it('state.json deleted and its last good copy replaced amid other writes: both are written again from memory; the other writes rewrite nothing', async () => {
    const dir = tempDir('toolgate-fw-')
    const store = new StateStore(path.join(dir, 'state.json'))
    await store.update((s) => {
      s.tools['gh:delete_repo'] = { user_disabled: true }
    })
    const rewrites: string[] = []
    const stop = store.watchForLoss((file, how) => rewrites.push(`${path.basename(file)} ${how}`))
    closers.push(stop)
    await busyFolder(dir, 30)
    await sleep(500)
    expect(rewrites).toEqual([])

    const busy = busyFolder(dir, 30)
    fs.rmSync(path.join(dir, 'state.json'))
    await writeFileAtomic(path.join(dir, 'state.last-good.json'), JSON.stringify({ version: 2 }))
    await busy
    const locked = (f: string) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).tools?.['gh:delete_repo']?.user_disabled === true
      } catch {
        return false
      }
    }
    await waitFor(() => locked('state.json') && locked('state.last-good.json'), 5000, 'both files written again from memory')
    expect(rewrites).toContain('state.json deleted')
    expect(rewrites).toContain('state.last-good.json changed')
    expect(store.warning).toMatch(/changed behind Toolgate's back/)
  })

  it("the store's own writes are not taken for a loss", async () => {
    const dir = tempDir('toolgate-fw-')
    const store = new StateStore(path.join(dir, 'state.json'))
    const rewrites: string[] = []
    closers.push(store.watchForLoss((file, how) => rewrites.push(`${path.basename(file)} ${how}`)))
    for (let i = 0; i < 30; i++)
      await store.update((s) => {
        s.tools[`srv:t${i}`] = { user_disabled: true }
      })
    await sleep(600)
    expect(rewrites).toEqual([])
    expect(store.warning).toBeNull()
  })
})
