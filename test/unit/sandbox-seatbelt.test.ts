// The macOS profile cannot run here, so it is checked semantically: a small evaluator of the
// Seatbelt rule language (last matching rule wins, as in sandbox-exec) answers "may this
// process read / write this path, connect, see other processes?" for generated profiles.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { seatbeltProfile, sbplString, variantRule } from '../../src/main/core/upstream/sandbox/seatbelt'
import { buildPlan, cacheRoot, type PlanEnv } from '../../src/main/core/upstream/sandbox/plan'
import type { ServerConfig } from '../../src/shared/config-schema'

// ---- a tiny SBPL reader and evaluator (independent of the generator) ----------------------

type Sx = string | { str: string } | { regex: string } | Sx[]

function parse(text: string): Sx[] {
  let i = 0
  const out: Sx[] = []
  const skip = (): void => {
    while (i < text.length && /\s/.test(text[i])) i++
    if (text[i] === ';') {
      while (i < text.length && text[i] !== '\n') i++
      skip()
    }
  }
  const str = (): string => {
    i++ // opening quote
    let s = ''
    while (text[i] !== '"') {
      if (i >= text.length) throw new Error('unterminated string')
      if (text[i] === '\\') {
        const c = text[++i]
        s += c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c
      } else s += text[i]
      i++
    }
    i++
    return s
  }
  const expr = (): Sx => {
    skip()
    if (text[i] === '(') {
      i++
      const list: Sx[] = []
      for (;;) {
        skip()
        if (text[i] === ')') {
          i++
          return list
        }
        if (i >= text.length) throw new Error('unbalanced parentheses')
        list.push(expr())
      }
    }
    if (text[i] === '"') return { str: str() }
    if (text[i] === '#' && text[i + 1] === '"') {
      // a regex literal is raw: its backslashes are the regex's
      const end = text.indexOf('"', i + 2)
      if (end < 0) throw new Error('unterminated regex')
      const raw = text.slice(i + 2, end)
      i = end + 1
      return { regex: raw }
    }
    let atom = ''
    while (i < text.length && !/[\s()]/.test(text[i])) atom += text[i++]
    return atom
  }
  for (skip(); i < text.length; skip()) out.push(expr())
  return out
}

interface Rule {
  allow: boolean
  ops: string[]
  filters: Sx[]
}

function rules(profile: string): Rule[] {
  const forms = parse(profile)
  expect(forms[0]).toEqual(['version', '1'])
  return forms.slice(1).map((f) => {
    if (!Array.isArray(f) || (f[0] !== 'allow' && f[0] !== 'deny')) throw new Error(`unexpected form ${JSON.stringify(f)}`)
    const ops = f.slice(1).filter((x): x is string => typeof x === 'string')
    const filters = f.slice(1).filter((x) => typeof x !== 'string')
    return { allow: f[0] === 'allow', ops, filters }
  })
}

const opMatches = (pattern: string, op: string): boolean =>
  pattern === op || pattern === 'default' || (pattern.endsWith('*') && op.startsWith(pattern.slice(0, -1)))
const under = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith('/') ? dir : dir + '/')

interface Query {
  op: string
  path?: string
  socket?: string
  /** a TCP/UDP peer, "host:port" (host "localhost" for the loopback) */
  ip?: string
  target?: 'self' | 'others'
  service?: string
}

function filterMatches(f: Sx, q: Query): boolean {
  if (!Array.isArray(f)) throw new Error(`bad filter ${JSON.stringify(f)}`)
  const [kind, ...rest] = f
  const arg = rest[0] as { str?: string; regex?: string } | Sx[]
  switch (kind) {
    case 'subpath':
      return q.path !== undefined && under(q.path, (arg as { str: string }).str)
    case 'literal':
      return q.path === (arg as { str: string }).str
    case 'regex':
      return q.path !== undefined && new RegExp((arg as { regex: string }).regex).test(q.path)
    case 'remote': {
      // (remote ip "host:port") with host "localhost" or "*" and port a number or "*"
      if (rest[0] === 'ip') {
        if (q.ip === undefined) return false
        const [host, port] = (rest[1] as { str: string }).str.split(':')
        const [qh, qp] = q.ip.split(':')
        return (host === '*' || host === qh) && (port === '*' || port === qp)
      }
      // (remote unix-socket) or (remote unix-socket (path-literal "…"))
      if (rest[0] !== 'unix-socket' || q.socket === undefined) return false
      const inner = rest[1] as Sx[] | undefined
      return inner === undefined || (inner[0] === 'path-literal' && (inner[1] as { str: string }).str === q.socket)
    }
    case 'target':
      return q.target === rest[0]
    case 'global-name':
      return q.service === (arg as { str: string }).str
    default:
      throw new Error(`unknown filter ${String(kind)}`)
  }
}

function allowed(rs: Rule[], q: Query): boolean {
  let verdict = false // deny by default
  for (const r of rs) {
    if (!r.ops.some((o) => opMatches(o, q.op))) continue
    if (r.filters.length > 0 && !r.filters.some((f) => filterMatches(f, q))) continue
    verdict = r.allow
  }
  return verdict
}

// ---- fixtures ------------------------------------------------------------------------------

const roots: string[] = []
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
})

function world() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-seatbelt-')))
  roots.push(root)
  const home = path.join(root, 'Users', 'me')
  for (const d of ['.ssh', 'Library/Keychains', '.npm', '.cache', 'work/files', 'projects/app', '.aws']) fs.mkdirSync(path.join(home, d), { recursive: true })
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'key')
  fs.writeFileSync(path.join(home, '.ssh', 'known_hosts'), 'hosts')
  fs.writeFileSync(path.join(home, '.netrc'), 'machine x password y')
  const dataDir = path.join(home, '.toolgate-data')
  fs.mkdirSync(dataDir)
  fs.writeFileSync(path.join(dataDir, 'instance.key'), 'k')
  const configPath = path.join(root, 'etc', 'mcp_config.json')
  fs.mkdirSync(path.dirname(configPath))
  fs.writeFileSync(configPath, '{}')
  const temp = path.join(root, 'private', 'tmp')
  fs.mkdirSync(temp, { recursive: true })
  const env: PlanEnv = { home, homes: [home], uid: 501, platform: 'darwin', tempDirs: [temp] }
  return { root, home, dataDir, configPath, temp, env }
}

function profileFor(
  extra: Partial<ServerConfig>,
  mode: 'run' | 'inspect' | 'inspect-network' = 'run',
  proxyPort: number | null = null,
  runner: { hosts: string[]; loopback: number[] } | null = null,
) {
  const w = world()
  const config = { name: 'x', command: 'node', args: ['server.js'], protocol: 'auto', enabled: true, trust: 'manual', ...extra } as ServerConfig
  const plan = buildPlan(config, { dataDir: w.dataDir, configPath: w.configPath }, mode, w.env, runner)
  const own = path.join(w.temp, 'toolgate-sbx-abc')
  const text = seatbeltProfile(plan, own, { proxyPort })
  return { ...w, config, own, text, rs: rules(text) }
}

describe('the macOS sandbox-exec profile', () => {
  it('hides the credentials, the data dir and the config file, and leaves the rest readable', () => {
    const p = profileFor({})
    const read = (file: string) => allowed(p.rs, { op: 'file-read-data', path: file })
    expect(read(path.join(p.home, '.ssh', 'id_rsa'))).toBe(false)
    expect(read(path.join(p.home, '.netrc'))).toBe(false)
    expect(read(path.join(p.home, '.aws'))).toBe(false)
    expect(read(path.join(p.home, 'Library', 'Keychains', 'login.keychain-db'))).toBe(false)
    expect(read(path.join(p.dataDir, 'instance.key'))).toBe(false)
    expect(read(p.configPath)).toBe(false)
    expect(allowed(p.rs, { op: 'file-read-metadata', path: path.join(p.dataDir, 'instance.key') })).toBe(false)
    expect(read('/usr/bin/node')).toBe(true)
    expect(read(path.join(p.home, 'projects', 'app', 'main.js'))).toBe(true)
  })

  it('is read-only except its own temp dir and its own caches (the shared ~/.npm and ~/.cache are not writable); the shared temp dirs are unreadable', () => {
    const p = profileFor({})
    const write = (file: string) => allowed(p.rs, { op: 'file-write-create', path: file })
    const read = (file: string) => allowed(p.rs, { op: 'file-read-data', path: file })
    expect(write(path.join(p.own, 'scratch'))).toBe(true)
    // the launchers are sent to the server's own caches in the data dir (npm_config_cache, XDG_CACHE_HOME)
    const mine = cacheRoot(p.config, p.dataDir)
    expect(path.dirname(mine)).toBe(path.join(p.dataDir, 'sandbox-caches'))
    expect(write(path.join(mine, 'npm', '_cacache', 'x'))).toBe(true)
    expect(read(path.join(mine, 'cache', 'uv', 'x'))).toBe(true)
    // another server's cache, the rest of the data dir: neither readable nor writable
    const other = cacheRoot({ ...p.config, name: 'other' }, p.dataDir)
    expect(write(path.join(other, 'npm', 'x'))).toBe(false)
    expect(read(path.join(other, 'npm', 'x'))).toBe(false)
    expect(read(path.join(p.dataDir, 'instance.key'))).toBe(false)
    expect(write(path.join(p.home, '.npm', '_cacache', 'x'))).toBe(false)
    expect(write(path.join(p.home, '.cache', 'x'))).toBe(false)
    expect(write('/dev/null')).toBe(true)
    expect(write(path.join(p.home, 'projects', 'app', 'main.js'))).toBe(false)
    expect(write(path.join(p.temp, 'other-program-file'))).toBe(false)
    expect(write('/etc/hosts')).toBe(false)
    expect(allowed(p.rs, { op: 'file-read-data', path: path.join(p.temp, 'ssh-agent-dir', 'agent.1') })).toBe(false)
    expect(allowed(p.rs, { op: 'file-read-data', path: path.join(p.own, 'scratch') })).toBe(true)
  })

  it('grants: fs_write and cwd become writable (read-only while inspecting); a grant inside a hidden folder re-opens just that', () => {
    const w = profileFor({
      cwd: undefined,
      sandbox: { fs_write: ['~/work/files'], fs_read: ['~/.ssh/known_hosts'] },
    })
    const write = (file: string) => allowed(w.rs, { op: 'file-write-data', path: file })
    const read = (file: string) => allowed(w.rs, { op: 'file-read-data', path: file })
    expect(write(path.join(w.home, 'work', 'files', 'a.txt'))).toBe(true)
    expect(read(path.join(w.home, '.ssh', 'known_hosts'))).toBe(true)
    expect(write(path.join(w.home, '.ssh', 'known_hosts'))).toBe(false)
    expect(read(path.join(w.home, '.ssh', 'id_rsa'))).toBe(false)

    const i = profileFor({ sandbox: { fs_write: ['~/work/files'] } }, 'inspect')
    expect(allowed(i.rs, { op: 'file-write-data', path: path.join(i.home, 'work', 'files', 'a.txt') })).toBe(false)
    expect(allowed(i.rs, { op: 'file-read-data', path: path.join(i.home, 'work', 'files', 'a.txt') })).toBe(true)
    expect(allowed(i.rs, { op: 'file-write-data', path: path.join(i.own, 'x') })).toBe(true)
  })

  it('a writable grant that contains a hidden path keeps it hidden', () => {
    const p = profileFor({ sandbox: { fs_write: ['~'] } })
    expect(allowed(p.rs, { op: 'file-write-data', path: path.join(p.home, 'notes.txt') })).toBe(true)
    expect(allowed(p.rs, { op: 'file-read-data', path: path.join(p.home, '.ssh', 'id_rsa') })).toBe(false)
    expect(allowed(p.rs, { op: 'file-write-data', path: path.join(p.dataDir, 'state.json') })).toBe(false)
  })

  it('network: on by default (DNS only among Unix sockets), off by config and always off for Inspect', () => {
    const on = profileFor({})
    expect(allowed(on.rs, { op: 'network-outbound' })).toBe(true)
    expect(allowed(on.rs, { op: 'network-outbound', socket: '/private/tmp/com.apple.launchd.x/Listeners' })).toBe(false)
    expect(allowed(on.rs, { op: 'network-outbound', socket: '/var/run/docker.sock' })).toBe(false)
    expect(allowed(on.rs, { op: 'network-outbound', socket: '/private/var/run/mDNSResponder' })).toBe(true)
    const off = profileFor({ sandbox: { network: false } })
    expect(allowed(off.rs, { op: 'network-outbound' })).toBe(false)
    expect(allowed(off.rs, { op: 'network-bind' })).toBe(false)
    const inspect = profileFor({ sandbox: { network: true } }, 'inspect')
    expect(allowed(inspect.rs, { op: 'network-outbound' })).toBe(false)
    const withNet = profileFor({ sandbox: { network: false } }, 'inspect-network')
    expect(allowed(withNet.rs, { op: 'network-outbound' })).toBe(true)
  })

  it("no path to the host's loopback (no namespaces here: a rule), except granted ports; the outside network stays", () => {
    const on = profileFor({})
    expect(allowed(on.rs, { op: 'network-outbound', ip: 'localhost:8719' })).toBe(false)
    expect(allowed(on.rs, { op: 'network-outbound', ip: 'localhost:5432' })).toBe(false)
    expect(allowed(on.rs, { op: 'network-outbound', ip: '*:443' })).toBe(true)
    const granted = profileFor({ sandbox: { loopback: [5432] } })
    expect(allowed(granted.rs, { op: 'network-outbound', ip: 'localhost:5432' })).toBe(true)
    expect(allowed(granted.rs, { op: 'network-outbound', ip: 'localhost:8719' })).toBe(false)
    const offGranted = profileFor({ sandbox: { network: false, loopback: [5432] } })
    expect(allowed(offGranted.rs, { op: 'network-outbound', ip: 'localhost:5432' })).toBe(true)
    expect(allowed(offGranted.rs, { op: 'network-outbound', ip: '*:443' })).toBe(false)
    // Inspect never gets the loopback grants
    expect(allowed(profileFor({ sandbox: { loopback: [5432] } }, 'inspect-network').rs, { op: 'network-outbound', ip: 'localhost:5432' })).toBe(false)
  })

  it("an allowlist: nothing but Toolgate's egress proxy on localhost (and granted ports); no DNS of its own", () => {
    const p = profileFor({ sandbox: { network: ['api.github.com'], loopback: [5432] } }, 'run', 41234)
    expect(allowed(p.rs, { op: 'network-outbound', ip: 'localhost:41234' })).toBe(true)
    expect(allowed(p.rs, { op: 'network-outbound', ip: 'localhost:5432' })).toBe(true)
    expect(allowed(p.rs, { op: 'network-outbound', ip: '*:443' })).toBe(false)
    expect(allowed(p.rs, { op: 'network-outbound', ip: 'localhost:8719' })).toBe(false)
    expect(allowed(p.rs, { op: 'network-outbound', socket: '/private/var/run/mDNSResponder' })).toBe(false)
    // an empty list is no network
    expect(allowed(profileFor({ sandbox: { network: [] } }, 'run', 41234).rs, { op: 'network-outbound', ip: 'localhost:41234' })).toBe(false)
  })

  it("Inspect of an npx server: its registry through Toolgate's egress proxy and nothing else (no DNS, no loopback grant, no other host)", () => {
    const npm = { hosts: ['registry.npmjs.org:443'], loopback: [] }
    const p = profileFor({ command: 'npx', args: ['-y', 'some-server'], sandbox: { network: true, loopback: [5432] } }, 'inspect', 41234, npm)
    expect(allowed(p.rs, { op: 'network-outbound', ip: 'localhost:41234' })).toBe(true)
    expect(allowed(p.rs, { op: 'network-outbound', ip: '*:443' })).toBe(false)
    expect(allowed(p.rs, { op: 'network-outbound', ip: 'localhost:5432' })).toBe(false)
    expect(allowed(p.rs, { op: 'network-outbound', ip: 'localhost:8719' })).toBe(false)
    expect(allowed(p.rs, { op: 'network-outbound', socket: '/private/var/run/mDNSResponder' })).toBe(false)
    // a registry mirror on this machine is reached on its port, only while inspected
    const mirror = profileFor({ command: 'npx', args: ['-y', 'some-server'] }, 'inspect', 41234, { hosts: [], loopback: [4873] })
    expect(allowed(mirror.rs, { op: 'network-outbound', ip: 'localhost:4873' })).toBe(true)
    expect(allowed(mirror.rs, { op: 'network-outbound', ip: 'localhost:8719' })).toBe(false)
  })

  it('hides the credential files whether they exist or not (path rules hold through a rename or a later creation)', () => {
    const p = profileFor({})
    for (const rel of [
      '.config/git/credentials',
      '.vault-token',
      '.pgpass',
      '.cargo/credentials.toml',
      '.terraform.d/credentials.tfrc.json',
      '.env',
      '.zsh_history',
      '.codex/auth.json',
      '.gemini/settings.json',
      '.codeium/windsurf/mcp_config.json',
      'Library/Application Support/Code/User/mcp.json',
    ]) {
      expect(fs.existsSync(path.join(p.home, rel))).toBe(false)
      expect(allowed(p.rs, { op: 'file-read-data', path: path.join(p.home, rel) }), rel).toBe(false)
    }
    expect(allowed(p.rs, { op: 'file-read-data', path: path.join(p.home, '.gitconfig') })).toBe(true)
  })

  it("copies and variants of a hidden file are hidden with it, existing or not: backups (Toolgate's own too), locks, .env.local", () => {
    const p = profileFor({})
    fs.writeFileSync(path.join(p.home, '.claude.json'), '{"mcpServers":{}}')
    const read = (file: string) => allowed(p.rs, { op: 'file-read-data', path: file })
    for (const rel of [
      '.claude.json.toolgate-backup-2026-11-27T10-00-00Z',
      '.claude.json.backup',
      '.netrc~',
      '.pgpass.bak',
      '.env.local',
      '.zsh_history.LOCK',
      'Library/Application Support/Code/User/mcp.json.toolgate-backup-1',
    ]) {
      expect(read(path.join(p.home, rel)), rel).toBe(false)
    }
    expect(read(`${p.configPath}~`)).toBe(false)
    expect(read(`${p.configPath}.swp`)).toBe(false)
    // names that only begin the same way stay readable
    for (const rel of ['.envrc', '.netrcs', '.gitconfig', '.claude.jsonx']) expect(read(path.join(p.home, rel)), rel).toBe(true)
  })

  it('the variant rule escapes the regex characters of a path; a path with a quote or backslash gets none', () => {
    const rule = variantRule('/Users/a+b (x)/.netrc')
    expect(rule).not.toBeNull()
    const [[kind, re]] = parse(rule ?? '') as [[string, { regex: string }]]
    expect(kind).toBe('regex')
    const r = new RegExp(re.regex)
    expect(r.test('/Users/a+b (x)/.netrc.bak')).toBe(true)
    expect(r.test('/Users/a+b (x)/.netrc~')).toBe(true)
    expect(r.test('/Users/a+b (x)/.netrcXbak')).toBe(false)
    expect(r.test('/Users/aab (x)/.netrc.bak')).toBe(false)
    expect(r.test('/Users/a+b x/.netrc.bak')).toBe(false)
    expect(variantRule('/Users/a"b/.netrc')).toBeNull()
    expect(variantRule('/Users/a\\b/.netrc')).toBeNull()
  })

  it('other processes are invisible and the keychain service is unreachable', () => {
    const p = profileFor({})
    expect(allowed(p.rs, { op: 'process-info-pidinfo', target: 'others' })).toBe(false)
    expect(allowed(p.rs, { op: 'process-info-pidinfo', target: 'self' })).toBe(true)
    expect(allowed(p.rs, { op: 'mach-lookup', service: 'com.apple.SecurityServer' })).toBe(false)
    expect(allowed(p.rs, { op: 'process-exec', path: '/usr/bin/node' })).toBe(true)
  })

  it('a path with quotes, backslashes and parentheses stays one literal (no rule injection)', () => {
    const evil = '/Users/me/a") (allow file-read* (subpath "/") ; \\ x'
    const parsed = parse(`(literal ${sbplString(evil)})`)
    expect(parsed).toEqual([['literal', { str: evil }]])
    expect(() => sbplString('/a\u0000b')).toThrow(/control character/)
  })
})
