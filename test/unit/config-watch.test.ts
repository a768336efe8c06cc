// The config watcher: an edit is never lost, also one made while the watcher is still starting.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import type { Config } from '../../src/shared/config-schema'
import { LOOK_AGAIN_MS, watchConfig, type ConfigWatcher } from '../../src/main/core/config/watch'
import type { ConfigError } from '../../src/main/core/config/load'
import { waitFor } from '../helpers/wait'
import { setServerField } from '../../src/main/core/config/write'
import { watchPolicy } from '../../src/main/core/config/policy-watch'
import { POLICY_ENV, policyLocation, readPolicy } from '../../src/main/core/config/policy'

useCleanup()

const open: ConfigWatcher[] = []
afterEach(async () => {
  for (const w of open.splice(0)) await w.close()
})

function setup(): { file: string; configs: Config[]; errors: ConfigError[]; watch: () => ConfigWatcher } {
  const dir = tempDir('toolgate-watch-')
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
    // the reloader looks again later (LOOK_AGAIN_MS): the same bad text is not reported again
    await new Promise((r) => setTimeout(r, LOOK_AGAIN_MS[1] + 200))
    expect(s.errors).toHaveLength(1)
  })

  it('does not reload an unchanged file when its watcher becomes ready', async () => {
    const s = setup()
    s.watch()
    fs.writeFileSync(s.file + '.other', 'x') // an event in the folder, for another file
    await new Promise((r) => setTimeout(r, 300))
    expect({ configs: s.configs.length, errors: s.errors.length }).toEqual({ configs: 0, errors: 0 })
  })

  it("sees the user's edit written just after Toolgate's own write replaced the file (renamed over it)", async () => {
    // Toolgate writes the config atomically (a temp file renamed over it) and reloads at once; the
    // user's edit right after lands before chokidar follows the new file: it must still be seen
    // (it was not, in 9 of 20 rounds here, before the reloader looked again)
    const s = setup()
    const w = s.watch()
    await new Promise((r) => setTimeout(r, 200))
    const servers = (names: string[]) => JSON.stringify({ mcpServers: Object.fromEntries(names.map((n) => [n, { command: 'node' }])) })
    for (let i = 0; i < 10; i++) {
      const tmp = `${s.file}.tg-${i}.tmp`
      fs.writeFileSync(tmp, servers(['a', `own${i}`]))
      fs.renameSync(tmp, s.file)
      w.reloadNow()
      fs.writeFileSync(s.file, servers(['a', `own${i}`, `user${i}`]))
      const c = await waitFor(() => s.configs.find((x) => x.servers.some((v) => v.name === `user${i}`)), 8000, `the user's edit of round ${i}`)
      expect(c.servers.map((x) => x.name).sort()).toEqual(['a', `own${i}`, `user${i}`])
    }
    expect(s.errors).toEqual([])
  }, 60_000)

  it('a config file deleted while it runs: the running config stays, one error says the file is missing, no file is created; a change meanwhile writes the running config back with it', async () => {
    const s = setup()
    fs.writeFileSync(s.file, JSON.stringify({ tools_limit: 7, mcpServers: { a: { command: 'node' }, b: { command: 'node' } } }, null, 4))
    // read at start: what runs
    const w = s.watch()
    const applied = s.configs.length
    fs.rmSync(s.file)
    const e = await waitFor(() => s.errors[0], 5000, 'the missing-file error')
    expect(e.message).toContain(s.file)
    expect(e.message).toMatch(/missing/)
    // before: the file was created empty and a config with no servers applied
    expect(fs.existsSync(s.file)).toBe(false)
    w.reloadNow()
    await new Promise((r) => setTimeout(r, LOOK_AGAIN_MS[0] + 200))
    expect({ configs: s.configs.length, errors: s.errors.length, exists: fs.existsSync(s.file) }).toEqual({ configs: applied, errors: 1, exists: false })
    // Toolgate's own write while the file is missing (the window switches b off): the running config, with the change
    setServerField(s.file, 'b', 'enabled', false)
    expect(JSON.parse(fs.readFileSync(s.file, 'utf8'))).toEqual({
      tools_limit: 7,
      mcpServers: { a: { command: 'node' }, b: { command: 'node', enabled: false } },
    })
    expect(fs.readFileSync(s.file, 'utf8')).toMatch(/^ {4}"tools_limit"/m) // the running file's layout
    w.reloadNow()
    const back = s.configs.at(-1)
    expect(back?.servers.map((x) => `${x.name}:${x.enabled}`)).toEqual(['a:true', 'b:false'])
    expect(s.configs.length).toBe(applied + 1)
  })

  it('a config file deleted and put back unchanged is applied again (which clears the error); a watcher closed leaves nothing for a later write', async () => {
    const s = setup()
    const text = fs.readFileSync(s.file, 'utf8')
    const w = s.watch()
    await new Promise((r) => setTimeout(r, 200))
    fs.rmSync(s.file)
    await waitFor(() => s.errors[0], 5000, 'the missing-file error')
    fs.writeFileSync(s.file, text)
    const c = await waitFor(() => s.configs.at(-1), 5000, 'the file put back')
    expect(c.servers.map((x) => x.name)).toEqual(['a'])
    expect(s.errors).toHaveLength(1)
    await w.close()
    fs.rmSync(s.file)
    // nothing runs the file now: a write has no running config to start from
    expect(() => setServerField(s.file, 'a', 'enabled', false)).toThrow(/no server named "a"/)
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

  it('attack: its folder is a symlink (a dotfiles or Nix-managed folder) swapped to another folder: the new file is read, and its edits too', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-watch-link-'))
    const write = (dir: string, servers: string[]): void => {
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, 'mcp_config.json'), JSON.stringify({ mcpServers: Object.fromEntries(servers.map((n) => [n, { command: 'node' }])) }))
    }
    write(path.join(root, 'gen-1'), ['a'])
    write(path.join(root, 'gen-2'), ['a', 'locked_down'])
    const link = path.join(root, 'toolgate')
    fs.symlinkSync('gen-1', link)
    const configs: Config[] = []
    const w = watchConfig(path.join(link, 'mcp_config.json'), { onConfig: (c) => configs.push(c), onError: () => undefined }, { debounceMs: 20 })
    open.push(w)
    await new Promise((r) => setTimeout(r, 300))
    // the switch: a new link renamed over the old one (ln -sfn, home-manager)
    fs.symlinkSync('gen-2', `${link}.new`)
    fs.renameSync(`${link}.new`, link)
    // before: nothing; the running config stayed gen-1's while the file read gen-2
    const c = await waitFor(() => configs.at(-1), 5000, 'the config of the folder the link now points to')
    expect(c.servers.map((x) => x.name).sort()).toEqual(['a', 'locked_down'])
    // and the new folder's file is the one followed from now on
    await new Promise((r) => setTimeout(r, 300))
    write(path.join(root, 'gen-2'), ['a', 'locked_down', 'b'])
    await waitFor(() => (configs.at(-1)?.servers.length === 3 ? true : undefined), 5000, 'the edit of the new folder’s file')
    // an edit of the old folder is no longer the config
    const n = configs.length
    write(path.join(root, 'gen-1'), ['old'])
    await new Promise((r) => setTimeout(r, 300))
    expect(configs).toHaveLength(n)
  })
})

describe('watchPolicy', () => {
  it('attack: the policy folder is a symlink swapped to another folder (configuration management): the new policy applies', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-policy-link-'))
    for (const [gen, text] of [
      ['gen-1', '{}'],
      ['gen-2', JSON.stringify({ servers: { blocked_commands: ['curl'] } })],
    ]) {
      fs.mkdirSync(path.join(root, gen))
      fs.writeFileSync(path.join(root, gen, 'policy.json'), text)
    }
    const link = path.join(root, 'policy')
    fs.symlinkSync('gen-1', link)
    const env = { [POLICY_ENV]: path.join(link, 'policy.json') }
    const machine = path.join(root, 'no-machine-policy', 'policy.json')
    const seen: Array<string | null> = []
    const first = readPolicy(policyLocation(env, machine))
    const w = watchPolicy(first, (st) => seen.push(st?.text ?? null), env, machine, 20)
    try {
      await new Promise((r) => setTimeout(r, 300))
      fs.symlinkSync('gen-2', `${link}.new`)
      fs.renameSync(`${link}.new`, link)
      // before: nothing; the running policy stayed gen-1's
      const text = await waitFor(() => seen.at(-1), 5000, 'the policy of the folder the link now points to')
      expect(text).toContain('blocked_commands')
    } finally {
      await w.close()
    }
  })
})

describe('watchPolicy: the machine policy folder made again', () => {
  it('attack: removed and made again (a package upgrade, configuration management): the policy applies again, not none until a restart', async () => {
    const root = tempDir('toolgate-policy-remade-')
    const folder = path.join(root, 'etc-toolgate')
    const machine = path.join(folder, 'policy.json')
    const block = JSON.stringify({ servers: { blocked_commands: ['curl'] } })
    fs.mkdirSync(folder)
    fs.writeFileSync(machine, block)
    const seen: Array<string | null> = []
    const w = watchPolicy(readPolicy(policyLocation({}, machine)), (st) => seen.push(st?.text ?? null), {}, machine, 20)
    try {
      await new Promise((r) => setTimeout(r, 300))
      fs.rmSync(folder, { recursive: true })
      // no machine policy while it is gone: none applies
      await waitFor(() => seen.length === 1, 5000, 'the removal')
      expect(seen).toEqual([null])
      fs.mkdirSync(folder)
      fs.writeFileSync(machine, block)
      // before: nothing more; the organisation's policy stayed lifted
      await waitFor(() => seen.length === 2, 5000, 'the policy made again')
      expect(seen[1]).toBe(block)
    } finally {
      await w.close()
    }
  })
})

describe('watchPolicy: the machine policy folder made after the start', () => {
  it('attack: a policy deployed while Toolgate runs (its folder did not exist at the start) applies at once, not at the next start', async () => {
    const root = tempDir('toolgate-policy-later-')
    const folder = path.join(root, 'etc-toolgate')
    const machine = path.join(folder, 'policy.json')
    const block = JSON.stringify({ servers: { blocked_commands: ['curl'] } })
    const seen: Array<string | null> = []
    const w = watchPolicy(readPolicy(policyLocation({}, machine)), (st) => seen.push(st?.text ?? null), {}, machine, 20)
    try {
      await new Promise((r) => setTimeout(r, 300))
      fs.mkdirSync(folder)
      fs.writeFileSync(machine, block)
      // before: nothing until a restart; the organisation's policy did not apply
      await waitFor(() => seen.at(-1), 5000, 'the policy deployed after the start')
      expect(seen.at(-1)).toBe(block)
    } finally {
      await w.close()
    }
  })
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

describe('a watched file that is itself a symlink', () => {
  const policyText = (blocked: string[]): string => JSON.stringify({ servers: { blocked_commands: blocked } })

  it('attack: the policy file links to a file elsewhere (configuration management): an edit of that file applies, not only after a restart', async () => {
    const root = tempDir('toolgate-policy-filelink-')
    fs.mkdirSync(path.join(root, 'managed'))
    fs.mkdirSync(path.join(root, 'etc'))
    const target = path.join(root, 'managed', 'policy.json')
    fs.writeFileSync(target, '{}')
    const file = path.join(root, 'etc', 'policy.json')
    fs.symlinkSync(target, file)
    const env = { [POLICY_ENV]: file }
    const machine = path.join(root, 'no-machine-policy', 'policy.json')
    const seen: Array<string | null> = []
    const w = watchPolicy(readPolicy(policyLocation(env, machine)), (st) => seen.push(st?.text ?? null), env, machine, 20)
    try {
      await new Promise((r) => setTimeout(r, 300))
      fs.writeFileSync(target, policyText(['curl']))
      // before: nothing (the watch was on etc/, where the link itself did not change); the old policy stayed
      expect(await waitFor(() => seen.at(-1), 5000, 'the edit of the file the policy links to')).toContain('curl')
      // the link pointed elsewhere (ln -sf: a new link renamed over it): that file applies, and its edits
      const other = path.join(root, 'managed', 'policy-2.json')
      fs.writeFileSync(other, policyText(['wget']))
      fs.symlinkSync(other, `${file}.new`)
      fs.renameSync(`${file}.new`, file)
      expect(await waitFor(() => (seen.at(-1)?.includes('wget') ? seen.at(-1) : undefined), 5000, 'the file the link now names')).toContain('wget')
      await new Promise((r) => setTimeout(r, 300))
      fs.writeFileSync(other, policyText(['wget', 'nc']))
      await waitFor(() => (seen.at(-1)?.includes('"nc"') ? true : undefined), 5000, 'an edit of the file the link now names')
      // the file it no longer names is not the policy
      const n = seen.length
      fs.writeFileSync(target, '{}')
      await new Promise((r) => setTimeout(r, 300))
      expect(seen).toHaveLength(n)
    } finally {
      await w.close()
    }
  })

  it('attack: NixOS-shaped /etc (policy.json links through a static folder link swapped at each switch): the new generation applies', async () => {
    const root = tempDir('toolgate-policy-nix-')
    for (const [gen, blocked] of [
      ['gen-1', []],
      ['gen-2', ['curl']],
    ] as const) {
      fs.mkdirSync(path.join(root, 'store', gen, 'toolgate'), { recursive: true })
      fs.writeFileSync(path.join(root, 'store', gen, 'toolgate', 'policy.json'), policyText([...blocked]))
    }
    const etc = path.join(root, 'etc')
    fs.mkdirSync(path.join(etc, 'toolgate'), { recursive: true })
    fs.symlinkSync(path.join(root, 'store', 'gen-1'), path.join(etc, 'static'))
    const file = path.join(etc, 'toolgate', 'policy.json')
    // the file's own link never changes: /etc/toolgate/policy.json -> /etc/static/toolgate/policy.json
    fs.symlinkSync(path.join(etc, 'static', 'toolgate', 'policy.json'), file)
    const env = { [POLICY_ENV]: file }
    const machine = path.join(root, 'no-machine-policy', 'policy.json')
    const seen: Array<string | null> = []
    const w = watchPolicy(readPolicy(policyLocation(env, machine)), (st) => seen.push(st?.text ?? null), env, machine, 20)
    try {
      await new Promise((r) => setTimeout(r, 300))
      // the switch: etc/static renamed over by a link to the new generation
      fs.symlinkSync(path.join(root, 'store', 'gen-2'), path.join(etc, 'static.new'))
      fs.renameSync(path.join(etc, 'static.new'), path.join(etc, 'static'))
      // before: nothing; gen-1's policy (nothing blocked) stayed until a restart
      expect(await waitFor(() => seen.at(-1), 5000, 'the policy of the new generation')).toContain('curl')
    } finally {
      await w.close()
    }
  })

  it('the config file links to a file elsewhere (a dotfiles manager): an edit of that file is applied', async () => {
    const root = tempDir('toolgate-watch-filelink-')
    fs.mkdirSync(path.join(root, 'dotfiles'))
    fs.mkdirSync(path.join(root, 'conf'))
    const target = path.join(root, 'dotfiles', 'mcp_config.json')
    const write = (servers: string[]): void =>
      fs.writeFileSync(target, JSON.stringify({ mcpServers: Object.fromEntries(servers.map((n) => [n, { command: 'node' }])) }))
    write(['a'])
    const file = path.join(root, 'conf', 'mcp_config.json')
    fs.symlinkSync(target, file)
    const configs: Config[] = []
    open.push(watchConfig(file, { onConfig: (c) => configs.push(c), onError: () => undefined }, { debounceMs: 20 }))
    // past the reloader's own looks again after its first read, so only a watch event can bring the edit
    await new Promise((r) => setTimeout(r, (LOOK_AGAIN_MS.at(-1) ?? 0) + 300))
    const n = configs.length
    write(['a', 'b'])
    await waitFor(() => (configs.length > n && configs.at(-1)?.servers.length === 2 ? true : undefined), 5000, 'the edit of the file the config links to')
  })
})
