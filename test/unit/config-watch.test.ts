// The config watcher: an edit is never lost, also one made while the watcher is still starting.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Config } from '../../src/shared/config-schema'
import { watchConfig, type ConfigWatcher } from '../../src/main/core/config/watch'
import type { ConfigError } from '../../src/main/core/config/load'
import { waitFor } from '../helpers/wait'

const open: ConfigWatcher[] = []
afterEach(async () => {
  for (const w of open.splice(0)) await w.close()
})

function setup(): { file: string; configs: Config[]; errors: ConfigError[]; watch: () => ConfigWatcher } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-watch-'))
  const file = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'node' } } }))
  const configs: Config[] = []
  const errors: ConfigError[] = []
  const watch = () => {
    const w = watchConfig(file, { onConfig: (c) => configs.push(c), onError: (e) => errors.push(e) }, { debounceMs: 20 })
    open.push(w)
    return w
  }
  return { file, configs, errors, watch }
}

describe('watchConfig', () => {
  it('sees an edit made right after it started, before its file watcher was ready', async () => {
    const s = setup()
    s.watch()
    // at once, in the same tick: no file watcher is listening yet
    fs.writeFileSync(s.file, JSON.stringify({ mcpServers: { a: { command: 'node' }, b: { command: 'node' } } }))
    const c = await waitFor(() => s.configs.at(-1), 5000, 'the edited config')
    expect(c.servers.map((x) => x.name).sort()).toEqual(['a', 'b'])
  })

  it('reports a bad edit made before its file watcher was ready as an error, once', async () => {
    const s = setup()
    s.watch()
    fs.writeFileSync(s.file, '{"mcpServers": {')
    await waitFor(() => s.errors.length > 0, 5000, 'the config error')
    expect(s.configs).toEqual([])
  })

  it('does not reload an unchanged file when its watcher becomes ready', async () => {
    const s = setup()
    s.watch()
    fs.writeFileSync(s.file + '.other', 'x') // an event in the folder, for another file
    await new Promise((r) => setTimeout(r, 300))
    expect({ configs: s.configs.length, errors: s.errors.length }).toEqual({ configs: 0, errors: 0 })
  })

  it.skipIf(process.platform !== 'linux')(
    'follows its own file only: the other files of its folder get no watch of their own, and a replace of the config (renamed over it) still reloads',
    async () => {
      const s = setup()
      const dir = path.dirname(s.file)
      // a folder shared with other files (tools files, a log written line by line)
      const others = Array.from({ length: 20 }, (_, i) => path.join(dir, `tools-${i}.json`))
      for (const f of others) fs.writeFileSync(f, '[]')
      const log = path.join(dir, 'serve.log')
      fs.writeFileSync(log, '')
      s.watch()
      for (let i = 0; i < 20; i++) fs.appendFileSync(log, `line ${i}\n`)
      // an editor's save: a new file renamed over the config
      const tmp = path.join(dir, '.mcp_config.json.tmp')
      fs.writeFileSync(tmp, JSON.stringify({ mcpServers: { a: { command: 'node' }, c: { command: 'node' } } }))
      fs.renameSync(tmp, s.file)
      const c = await waitFor(() => s.configs.at(-1), 5000, 'the replaced config')
      expect(c.servers.map((x) => x.name).sort()).toEqual(['a', 'c'])
      expect(s.configs).toHaveLength(1)
      // what this process watches (inotify, Linux): the folder, and none of the other files
      const watched = inotifyInodes()
      expect(watched.has(fs.statSync(dir).ino)).toBe(true)
      expect([...others, log].filter((f) => watched.has(fs.statSync(f).ino))).toEqual([])
    },
  )
})

/** The inodes this process has inotify watches on (/proc/self/fdinfo of its inotify descriptors). */
function inotifyInodes(): Set<number> {
  const out = new Set<number>()
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target = ''
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      continue
    }
    if (target !== 'anon_inode:inotify') continue
    for (const m of fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').matchAll(/\binotify wd:\w+ ino:([0-9a-f]+)/g)) out.add(parseInt(m[1], 16))
  }
  return out
}
