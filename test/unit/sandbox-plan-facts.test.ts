// Plans built together share one look at the filesystem (plan-facts.ts). A stale shared answer
// would leave a secret in view, so: (1) for many configs, modes and orders the shared plans are
// exactly the plans each built alone (a home with hidden files, copies of them, symlinks into and
// out of hidden folders, grants of all kinds); (2) the shared answers end with the run that shares
// them, so a secret created after it is hidden from the next plan; (3) launches built in one run
// (what the upstream manager does) are the launches built one by one; (4) what a plan computes
// from the answers and keeps across runs (recall) is taken again only while every answer it used
// is the same: plans built run after run while the home changes are the plans built afresh.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPlan, real, type PlanEnv, type SandboxMode, type SandboxPlan } from '../../src/main/core/upstream/sandbox/plan'
import { PlanFacts, planFacts, sharePlanFacts } from '../../src/main/core/upstream/sandbox/plan-facts'
import { launchSpec } from '../../src/main/core/upstream/sandbox/launch'
import { sandboxSupport } from '../../src/main/core/upstream/sandbox/detect'
import type { ServerConfig } from '../../src/shared/config-schema'

let root: string
let home: string
let work: string
let dataDir: string
let configPath: string
let env: PlanEnv

const write = (p: string, text = 'x'): void => {
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, text)
}

beforeAll(() => {
  // not under the temp dirs: those are private in the view, and their contents would not be planned
  root = fs.mkdtempSync(path.join(process.cwd(), '.tmp-plan-facts-'))
  home = path.join(root, 'home')
  work = path.join(root, 'work')
  dataDir = path.join(root, 'data')
  configPath = path.join(dataDir, 'mcp_config.json')
  write(configPath, '{}')
  write(path.join(dataDir, 'mcp_config.json.toolgate-backup-1'), '{}')
  // hidden files, their copies, hidden folders, a masked folder with symlinks, a link into a hidden folder
  write(path.join(home, '.netrc'), 'machine a password b')
  write(path.join(home, '.netrc~'), 'old')
  write(path.join(home, '.env.local'), 'TOKEN=1')
  write(path.join(home, '.npmrc'), '//registry/:_authToken=x')
  write(path.join(home, '.ssh/id_ed25519'), 'key')
  write(path.join(home, '.config/gh/hosts.yml'), 'token')
  write(path.join(home, '.config/Code/User/mcp.json'), '{}')
  write(path.join(home, '.config/Code/User/mcp.json.bak'), '{}')
  write(path.join(home, '.config/Code/User/keybindings.json'), '[]')
  fs.symlinkSync('keybindings.json', path.join(home, '.config/Code/User/link.json'))
  fs.mkdirSync(path.join(home, '.npm'), { recursive: true })
  fs.mkdirSync(path.join(home, '.cache'), { recursive: true })
  write(path.join(home, 'notes/today.md'), 'hi')
  fs.symlinkSync(path.join(home, '.ssh'), path.join(home, 'notes/keys'))
  write(path.join(work, 'project/src/a.ts'), '')
  write(path.join(work, 'project/.env'), 'A=1')
  fs.symlinkSync(path.join(work, 'project'), path.join(home, 'proj'))
  // toolchains in hidden entries of the home: a folder (nvm) and a link to elsewhere (volta)
  write(path.join(home, '.nvm/versions/node/v20/bin/node'), '')
  fs.mkdirSync(path.join(work, 'volta/bin'), { recursive: true })
  fs.symlinkSync(path.join(work, 'volta'), path.join(home, '.volta'))
  fs.mkdirSync(path.join(home, '.local/bin'), { recursive: true })
  env = { home, homes: [real(home)], uid: process.getuid?.() ?? null, platform: 'linux', tempDirs: ['/tmp', '/var/tmp'].map((d) => real(d)) }
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** Many servers: no grants, grants of the home, of folders in it, of a link to elsewhere, a cwd, networks, loopback, a program under /tmp. */
function configs(): ServerConfig[] {
  const grants: Array<Partial<ServerConfig>> = [
    {},
    { sandbox: { fs_read: ['~/notes'] } },
    { sandbox: { fs_write: ['~/notes'] } },
    { sandbox: { fs_write: ['~'] } },
    { sandbox: { fs_read: ['~/.config'] } },
    { sandbox: { fs_write: ['~/.config/Code/User'] } },
    { sandbox: { fs_read: ['~/proj'], fs_write: [work] } },
    { sandbox: { fs_read: ['~/.ssh'] } },
    { sandbox: { fs_write: ['~/.npm'], network: false } },
    { sandbox: { network: ['example.com', '*.example.org'] } },
    { sandbox: { loopback: [5432] } },
    { cwd: path.join(work, 'project') },
    { cwd: path.join(work, 'project'), sandbox: { fs_write: [path.join(work, 'project')], network: false } },
    { sandbox: { fs_read: ['~/missing/folder'] } },
  ]
  const commands = [
    { command: process.execPath, args: ['server.js'] },
    { command: 'npx', args: ['-y', '@scope/server'] },
    { command: process.execPath, args: [path.join(os.tmpdir(), 'nowhere', 'server.js')] },
  ]
  const out: ServerConfig[] = []
  grants.forEach((g, i) => commands.forEach((c, j) => out.push({ name: `s${i}-${j}`, enabled: true, ...c, ...g } as ServerConfig)))
  return out
}

const MODES: SandboxMode[] = ['run', 'inspect', 'inspect-network']
const runner = { hosts: ['registry.npmjs.org:443'], loopback: [] }
const hashOf = (plans: SandboxPlan[]): string => crypto.createHash('sha256').update(JSON.stringify(plans)).digest('hex')

describe('sandbox plans built together', () => {
  it('are the plans built alone, for every config, mode and order', () => {
    const ctx = { dataDir, configPath }
    // and with folders of the home and the work folder as private temp dirs (hidden paths, a cwd under them)
    // and launched from toolchains in the home's hidden entries (PATH, the program's folder: shown)
    const nvm = path.join(home, '.nvm/versions/node/v20/bin')
    const launched = { ...env, path: [nvm, path.join(home, '.volta/bin'), '/usr/bin'], program: path.join(nvm, 'node') }
    const envs = [env, { ...env, tempDirs: [...env.tempDirs, real(work), real(path.join(home, '.config'))] }, launched]
    const jobs = configs().flatMap((c) => MODES.flatMap((m) => envs.map((e) => ({ c, m, e }))))
    expect(jobs.length).toBeGreaterThan(200)
    // (fresh: nothing kept from an earlier run either: each computed from its own look)
    const alone = jobs.map(({ c, m, e }) => buildPlan(c, ctx, m, e, runner, new PlanFacts({ fresh: true })))
    const facts = new PlanFacts()
    const together = jobs.map(({ c, m, e }) => buildPlan(c, ctx, m, e, runner, facts))
    expect(hashOf(together)).toBe(hashOf(alone))
    expect(together).toEqual(alone)
    // another order, another shared look: the same plans
    const order = jobs.map((_, i) => i).sort((a, b) => ((a * 7919) % 101) - ((b * 7919) % 101))
    const facts2 = new PlanFacts()
    const shuffled: SandboxPlan[] = []
    for (const i of order) shuffled[i] = buildPlan(jobs[i].c, ctx, jobs[i].m, jobs[i].e, runner, facts2)
    expect(hashOf(shuffled)).toBe(hashOf(alone))
    // the plans do hide what this home holds (the comparison above is not between empty plans)
    const first = alone[0]
    expect(first.masked.map((m) => m.path)).toContain(real(home))
    const homeEntries = first.masked.find((m) => m.path === real(home))?.entries.map((e) => e.name) ?? []
    expect(homeEntries).toContain('notes')
    expect(homeEntries).not.toContain('.netrc')
    expect(homeEntries).not.toContain('.netrc~')
    expect(homeEntries).not.toContain('.env.local')
    const covered = alone.flatMap((p) => p.hidden.map((h) => h.path))
    expect(covered).toContain(real(path.join(home, '.ssh')))
    // and the launched ones show their toolchains (the same for every server of a run)
    const shown = alone[jobs.findIndex((j) => j.e === launched)].mounts.map((m) => m.path)
    expect(shown).toEqual(expect.arrayContaining([real(path.join(home, '.nvm')), real(path.join(work, 'volta')), real(path.join(home, '.local/bin'))]))
    expect(alone[0].mounts.map((m) => m.path)).not.toContain(real(path.join(home, '.nvm')))
  })

  it('a plan handed out is its own: changing one does not change the next', () => {
    const ctx = { dataDir, configPath }
    const facts = new PlanFacts()
    const [c] = configs()
    const a = buildPlan(c, ctx, 'run', env, null, facts)
    const before = JSON.stringify(a)
    a.masked[0].entries.push({ name: 'intruder' })
    a.hidden.length = 0
    a.secrets.length = 0
    const b = buildPlan(c, ctx, 'run', env, null, facts)
    expect(JSON.stringify(b)).toBe(before)
  })

  it('share answers only while the run lasts: a secret created after it is hidden from the next plan', () => {
    const ctx = { dataDir, configPath }
    // a server that may write the home: its hidden entries are covered one by one, as they are at the start
    const c = configs().find((x) => typeof x.sandbox === 'object' && x.sandbox.fs_write?.[0] === '~') as ServerConfig
    const secret = path.join(home, '.gcloud-new')
    const copy = path.join(home, '.npmrc.save')
    try {
      const inRun = sharePlanFacts(() => {
        expect(planFacts()).toBe(planFacts()) // one look for the run
        return buildPlan(c, ctx, 'run', env, null)
      })
      expect(inRun.hidden.map((h) => h.path)).not.toContain(real(secret))
      fs.mkdirSync(secret, { recursive: true })
      write(copy, 'token')
      // outside any run: fresh facts for each plan
      expect(planFacts()).not.toBe(planFacts())
      const after = buildPlan(c, ctx, 'run', env, null)
      expect(after.hidden.map((h) => h.path)).toContain(real(secret))
      expect(after.secrets.map((h) => h.path)).toContain(copy)
      // and a new run looks again
      const nextRun = sharePlanFacts(() => buildPlan(c, ctx, 'run', env, null))
      expect(nextRun.hidden.map((h) => h.path)).toContain(real(secret))
      expect(nextRun.secrets.map((h) => h.path)).toContain(copy)
    } finally {
      fs.rmSync(secret, { recursive: true, force: true })
      fs.rmSync(copy, { force: true })
    }
  })

  it('a run that throws leaves no shared answers behind', () => {
    expect(() =>
      sharePlanFacts(() => {
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(planFacts()).not.toBe(planFacts())
  })

  it.runIf(sandboxSupport().available)('launches built in one run are the launches built one by one', () => {
    const ctx = { dataDir, configPath }
    // (an allowlist registers with the egress proxy, which only a running core has)
    const list = configs().filter((c) => c.command === process.execPath && !(typeof c.sandbox === 'object' && Array.isArray(c.sandbox.network)))
    const envVars = { PATH: process.env.PATH ?? '', HOME: home }
    const launch = (c: ServerConfig): { command: string; args: string[] } => {
      const spec = launchSpec({ ...c, command: c.command ?? '' }, envVars, { ctx, mode: 'run' })
      spec.cleanup()
      return { command: spec.command, args: spec.args }
    }
    list.map(launch) // the first launches create the data dir's sandbox files (an empty file, resolv.conf)
    const alone = list.map(launch)
    const together = sharePlanFacts(() => list.map(launch))
    expect(together).toEqual(alone)
    // the home is re-created without its secrets (the comparison above is not between empty launches)
    const args = alone[0].args.join(' ')
    expect(args).toContain(`--tmpfs ${real(home)} `)
    expect(args).toContain(`--ro-bind-try ${real(path.join(home, 'notes'))} `)
    expect(args).not.toContain(real(path.join(home, '.ssh')))
    expect(args).not.toContain(real(path.join(home, '.netrc')))
  })
})

describe('values kept across runs (recall)', () => {
  it('are taken again only while every answer they used is the same, including the answers of a recall inside them', () => {
    const dir = fs.mkdtempSync(path.join(root, 'recall-'))
    write(path.join(dir, 'a'))
    let inner = 0
    let outer = 0
    const key = `outer-${dir}`
    let facts = new PlanFacts()
    const innerOf = (): readonly string[] =>
      facts.recall(`inner-${dir}`, () => {
        inner++
        return facts.readdir(dir)
      })
    // each call a run of its own (its own look); the outer value reads the folder only through the inner recall
    const runWith = (): number => {
      facts = new PlanFacts()
      return facts.recall(key, () => {
        outer++
        return innerOf().length
      })
    }
    expect(runWith()).toBe(1)
    expect(runWith()).toBe(1)
    expect([outer, inner]).toEqual([1, 1]) // nothing changed: both taken again
    write(path.join(dir, 'b'))
    expect(runWith()).toBe(2) // the inner answer changed: the outer value is not the kept one
    expect([outer, inner]).toEqual([2, 2])
    fs.rmSync(path.join(dir, 'a'))
    fs.rmSync(path.join(dir, 'b'))
    fs.mkdirSync(path.join(dir, 'a'))
    fs.symlinkSync('a', path.join(dir, 'b'))
    // other entries under the same names: the question asked (the listing) answers the same, so the value holds
    expect(runWith()).toBe(2)
    expect([outer, inner]).toEqual([2, 2])
    fs.rmSync(path.join(dir, 'b'))
    expect(runWith()).toBe(1)
    expect([outer, inner]).toEqual([3, 3])
  })

  it('within one run a value is computed once; a fresh look takes nothing kept', () => {
    const dir = fs.mkdtempSync(path.join(root, 'recall-'))
    let made = 0
    const make = (f: PlanFacts) => () => (made++, f.isDir(dir))
    const f = new PlanFacts()
    expect(f.recall(`k-${dir}`, make(f))).toBe(true)
    expect(f.recall(`k-${dir}`, make(f))).toBe(true)
    expect(made).toBe(1)
    const fresh = new PlanFacts({ fresh: true })
    expect(fresh.recall(`k-${dir}`, make(fresh))).toBe(true)
    expect(made).toBe(2)
    fs.rmSync(dir, { recursive: true })
    const later = new PlanFacts()
    expect(later.recall(`k-${dir}`, make(later))).toBe(false)
    expect(made).toBe(3)
  })

  it('a kept value cannot be changed, and derive() inside recall() is refused', () => {
    const f = new PlanFacts()
    const v = f.recall('frozen-value', () => ({ list: [{ path: '/x' }] }))
    expect(() => v.list.push({ path: '/y' })).toThrow(TypeError)
    expect(() => {
      ;(v.list[0] as { path: string }).path = '/y'
    }).toThrow(TypeError)
    expect(() => f.recall('derive-inside', () => f.derive('inner', () => 1))).toThrow(/derive\("inner"\) inside recall\(\)/)
  })

  it('plans built run after run while the home changes are the plans built afresh', () => {
    const ctx = { dataDir, configPath }
    const h = path.join(root, 'home-changing')
    write(path.join(h, 'notes/today.md'), 'hi')
    write(path.join(h, '.ssh/id_ed25519'), 'key')
    write(path.join(h, '.netrc'), 'machine a password b')
    write(path.join(h, '.config/Code/User/keybindings.json'), '[]')
    fs.mkdirSync(path.join(h, '.npm'), { recursive: true })
    fs.mkdirSync(path.join(h, '.local/bin'), { recursive: true })
    fs.mkdirSync(path.join(work, 'elsewhere/bin'), { recursive: true })
    const e: PlanEnv = { ...env, home: h, homes: [real(h)], path: [path.join(h, '.local/bin'), '/usr/bin'] }
    const cs: ServerConfig[] = [
      { name: 'plain', enabled: true, command: process.execPath, args: ['server.js'] },
      { name: 'notes', enabled: true, command: process.execPath, args: ['server.js'], sandbox: { fs_read: ['~/notes'] } },
      { name: 'home-w', enabled: true, command: process.execPath, args: ['server.js'], sandbox: { fs_write: ['~'] } },
      { name: 'config', enabled: true, command: process.execPath, args: ['server.js'], sandbox: { fs_read: ['~/.config'] } },
    ] as ServerConfig[]
    const outcome = (facts: () => PlanFacts): unknown[] =>
      cs.map((c) => {
        try {
          return buildPlan(c, ctx, 'run', e, null, facts())
        } catch (err) {
          return { refused: (err as Error).message }
        }
      })
    const steps: Array<[string, () => void]> = [
      ['as it is', () => undefined],
      ['a new hidden folder', () => fs.mkdirSync(path.join(h, '.aws'))],
      ['a copy of a hidden file', () => write(path.join(h, '.netrc.bak'), 'old')],
      ['a new entry of the home', () => write(path.join(h, 'todo.txt'))],
      ['a new file in a hidden folder shown by a grant', () => write(path.join(h, '.config/gh/hosts.yml'), 'token')],
      [
        'a granted folder swapped for a link into a hidden one',
        () => {
          fs.rmSync(path.join(h, 'notes'), { recursive: true })
          fs.symlinkSync(path.join(h, '.ssh'), path.join(h, 'notes'))
        },
      ],
      [
        'a toolchain folder swapped for a link elsewhere',
        () => {
          fs.rmSync(path.join(h, '.local/bin'), { recursive: true })
          fs.symlinkSync(path.join(work, 'elsewhere/bin'), path.join(h, '.local/bin'))
        },
      ],
      ['a hidden file removed', () => fs.rmSync(path.join(h, '.netrc'))],
      [
        'back as it was',
        () => {
          fs.rmSync(path.join(h, 'notes'))
          write(path.join(h, 'notes/today.md'), 'hi')
          fs.rmSync(path.join(h, '.local/bin'))
          fs.mkdirSync(path.join(h, '.local/bin'))
        },
      ],
    ]
    const seen = new Set<string>()
    for (const [what, change] of steps) {
      change()
      const kept = sharePlanFacts(() => outcome(() => planFacts()))
      const afresh = outcome(() => new PlanFacts({ fresh: true }))
      expect(kept, what).toEqual(afresh)
      seen.add(JSON.stringify(afresh))
    }
    // the steps did change the plans (the comparison is not between plans that never change)
    expect(seen.size).toBeGreaterThanOrEqual(6)
  })
})
