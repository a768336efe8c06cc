// The Linux sandbox for real: launchSpec() builds the bwrap command line a stdio upstream gets,
// and a shell run through it tries what a malicious server would (read keys, follow symlinks
// into hidden folders, read Toolgate's /proc, write outside its grants, reach a loopback
// listener). bwrap and passt must be installed (.ci/run installs them).
import { execFile, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { launchSpec, sandboxSupport } from '../../src/main/core/upstream/sandbox'
import { SandboxGrantError } from '../../src/main/core/upstream/sandbox/plan'
import { PASTA_NOISE } from '../../src/main/core/upstream/sandbox/network'
import type { ServerConfig } from '../../src/shared/config-schema'

const support = sandboxSupport()
const roots: string[] = []
let listener: net.Server
let port = 0

beforeAll(async () => {
  expect(support.available, `bwrap must work on this machine: ${support.reason}`).toBe(true)
  listener = net.createServer((s) => s.end('hello\n'))
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r))
  port = (listener.address() as net.AddressInfo).port
})
afterAll(async () => {
  await new Promise((r) => listener.close(r))
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
})

function world() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-bwrap-')))
  roots.push(root)
  const home = path.join(root, 'home')
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true })
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY')
  fs.writeFileSync(path.join(home, '.ssh', 'known_hosts'), 'github.com ssh-ed25519 AAAA')
  fs.writeFileSync(path.join(home, '.netrc'), 'machine example.com password hunter2')
  fs.writeFileSync(path.join(home, 'notes.txt'), 'ordinary file')
  const dataDir = path.join(root, 'data')
  fs.mkdirSync(dataDir)
  fs.writeFileSync(path.join(dataDir, 'instance.key'), 'INSTANCE-KEY')
  fs.writeFileSync(path.join(dataDir, 'api_key'), 'API-KEY')
  const configPath = path.join(root, 'cfg', 'mcp_config.json')
  fs.mkdirSync(path.dirname(configPath))
  fs.writeFileSync(configPath, '{"api_key": "CONFIG-KEY"}')
  const files = path.join(root, 'files')
  fs.mkdirSync(files)
  const elsewhere = path.join(root, 'elsewhere')
  fs.mkdirSync(elsewhere)
  // an attacker's way around: symlinks into the hidden places
  fs.symlinkSync(path.join(home, '.ssh', 'id_rsa'), path.join(files, 'innocent.txt'))
  fs.symlinkSync(dataDir, path.join(files, 'data-link'))
  return { root, home, dataDir, configPath, files, elsewhere }
}

type World = ReturnType<typeof world>

/** Runs `script` with sh inside the sandbox the server entry would get; returns stdout + stderr. */
function run(w: World, script: string, extra: Partial<ServerConfig> = {}, mode: 'run' | 'inspect' | 'inspect-network' = 'run') {
  const config = { name: 'probe', command: '/bin/sh', args: ['-c', script], protocol: 'auto', enabled: true, trust: 'manual', ...extra } as ServerConfig & {
    command: string
  }
  const spec = launchSpec(config, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: w.home }, { ctx: { dataDir: w.dataDir, configPath: w.configPath }, mode })
  const r = spawnSync(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, encoding: 'utf8', timeout: 20_000 })
  return { out: withoutNoise(`${r.stdout}${r.stderr}`), status: r.status, spec }
}

/** The server's output without what pasta itself says (Toolgate leaves it out of the log the same way). */
const withoutNoise = (out: string): string =>
  out
    .split('\n')
    .filter((l) => !PASTA_NOISE.test(l))
    .join('\n')

/** Like run(), without blocking the event loop (the loopback listener lives in this process). */
function runAsync(w: World, script: string, extra: Partial<ServerConfig> = {}, mode: 'run' | 'inspect' | 'inspect-network' = 'run'): Promise<string> {
  const config = { name: 'probe', command: '/bin/sh', args: ['-c', script], protocol: 'auto', enabled: true, trust: 'manual', ...extra } as ServerConfig & {
    command: string
  }
  const spec = launchSpec(config, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: w.home }, { ctx: { dataDir: w.dataDir, configPath: w.configPath }, mode })
  return new Promise((resolve) => execFile(spec.command, spec.args, { env: spec.env, timeout: 20_000 }, (_e, stdout, stderr) => resolve(`${stdout}${stderr}`)))
}

describe('bwrap sandbox (Linux)', () => {
  it('starts the server through bwrap (inside pasta, for its network), not directly', () => {
    const w = world()
    const { out, spec } = run(w, 'echo inside')
    expect(spec.mechanism).toBe('bwrap')
    expect([spec.command, ...spec.args]).toContain(support.binary)
    expect(spec.args.slice(spec.args.indexOf('--', spec.args.indexOf(support.binary as string)))).toEqual(['--', '/bin/sh', '-c', 'echo inside'])
    expect(out.trim()).toBe('inside')
    const offline = run(w, 'echo inside', { sandbox: { network: false } }).spec
    expect(offline.command).toBe(support.binary) // no network: bwrap's own namespace, no pasta
  })

  it('hides ~/.ssh, ~/.netrc, the data dir and the config file; ordinary files stay readable', () => {
    const w = world()
    const { out } = run(
      w,
      `cat ${w.home}/.ssh/id_rsa; cat ${w.home}/.netrc; echo "[netrc:$(cat ${w.home}/.netrc)]"; cat ${w.dataDir}/instance.key; cat ${w.dataDir}/api_key; cat ${w.configPath}; ls -A ${w.dataDir}; cat ${w.home}/notes.txt`,
    )
    for (const secret of ['PRIVATE KEY', 'hunter2', 'INSTANCE-KEY', 'API-KEY', 'CONFIG-KEY']) expect(out).not.toContain(secret)
    expect(out).toContain('[netrc:]') // a hidden file reads as empty
    expect(out).toContain('ordinary file')
  })

  it('hides the credential files (git, Hugging Face, Vault, Postgres, cargo, Terraform, the MCP clients, histories, ~/.env); their neighbours stay readable', () => {
    const w = world()
    const secrets: Record<string, string> = {
      '.config/git/credentials': 'https://me:GIT-SECRET@github.com',
      '.cache/huggingface/token': 'HF-SECRET',
      '.vault-token': 'VAULT-SECRET',
      '.pgpass': 'db:5432:*:me:PG-SECRET',
      '.cargo/credentials.toml': 'token = "CARGO-SECRET"',
      '.terraform.d/credentials.tfrc.json': '{"token":"TF-SECRET"}',
      '.config/Code/User/mcp.json': '{"servers":{"x":{"env":{"T":"VSCODE-SECRET"}}}}',
      '.codeium/windsurf/mcp_config.json': 'WINDSURF-SECRET',
      '.codex/auth.json': 'CODEX-SECRET',
      '.gemini/settings.json': 'GEMINI-SECRET',
      '.bash_history': 'export TOKEN=HISTORY-SECRET',
      '.zsh_history': 'ZSH-SECRET',
      '.env': 'API_KEY=ENV-SECRET',
    }
    const neighbours: Record<string, string> = {
      '.config/git/config': '[user] name = me',
      '.cargo/config.toml': '[build] jobs = 2',
      '.config/Code/User/keybindings.json': '[]',
    }
    for (const [rel, text] of Object.entries({ ...secrets, ...neighbours })) {
      fs.mkdirSync(path.dirname(path.join(w.home, rel)), { recursive: true })
      fs.writeFileSync(path.join(w.home, rel), text)
    }
    const files = [...Object.keys(secrets), ...Object.keys(neighbours)].map((rel) => `${w.home}/${rel}`)
    const script = files.map((f) => `cat '${f}' 2>/dev/null; echo`).join('; ')
    // the home's hidden folders are out of sight unless granted; granted, the list still holds inside them
    const { out } = run(w, script, { sandbox: { fs_read: ['~/.config', '~/.cargo', '~/.cache', '~/.codeium'] } })
    for (const text of Object.values(secrets)) expect(out).not.toContain(text)
    for (const text of Object.values(neighbours)) expect(out).toContain(text)
    const ungranted = run(w, script).out
    for (const text of [...Object.values(secrets), ...Object.values(neighbours)]) expect(ungranted).not.toContain(text)
  })

  it("copies and variants of a hidden file are hidden with it (backups, Toolgate import --move's, .env.local, the config's editor backup); look-alike names stay", () => {
    const w = world()
    const secrets: Record<string, string> = {
      '.claude.json.toolgate-backup-2026-11-27T10-00-00Z': 'CLAUDE-BACKUP-SECRET',
      '.claude.json.backup': 'CLAUDE-OWN-BACKUP-SECRET',
      '.netrc~': 'NETRC-BACKUP-SECRET',
      '.pgpass.bak': 'PGPASS-BACKUP-SECRET',
      '.env.local': 'ENV-LOCAL-SECRET',
      '.config/Code/User/mcp.json.toolgate-backup-1': 'VSCODE-BACKUP-SECRET',
    }
    const neighbours: Record<string, string> = { '.envrc': 'ENVRC-OK', '.netrcs': 'NETRCS-OK', '.claude.jsonx': 'CLAUDEX-OK' }
    fs.writeFileSync(path.join(w.home, '.claude.json'), '{}')
    for (const [rel, text] of Object.entries({ ...secrets, ...neighbours })) {
      fs.mkdirSync(path.dirname(path.join(w.home, rel)), { recursive: true })
      fs.writeFileSync(path.join(w.home, rel), text)
    }
    fs.writeFileSync(`${w.configPath}~`, '{"api_key": "CONFIG-BACKUP-KEY"}')
    const files = [...Object.keys(secrets), ...Object.keys(neighbours)].map((rel) => `${w.home}/${rel}`)
    const root = process.getuid?.() === 0
    // the look-alikes are hidden entries of the home too: granted one by one, the variants are not
    const { out } = run(
      w,
      [...files, `${w.configPath}~`, ...(root ? ['/etc/shadow-', '/etc/gshadow-'] : [])].map((f) => `cat '${f}' 2>/dev/null; echo`).join('; ') +
        `; ls -A ${w.home} ${path.dirname(w.configPath)}`,
      { sandbox: { fs_read: [...Object.keys(neighbours).map((rel) => `~/${rel}`), '~/.config/Code/User'] } },
    )
    for (const text of [...Object.values(secrets), 'CONFIG-BACKUP-KEY']) expect(out).not.toContain(text)
    for (const name of [...Object.keys(secrets).filter((r) => !r.includes('/')), 'mcp_config.json~']) expect(out).not.toContain(name)
    for (const text of Object.values(neighbours)) expect(out).toContain(text)
    // as root, the shadow files' backups too (root owns them; no capability is needed to read them)
    if (root && fs.existsSync('/etc/shadow-')) expect(out).not.toMatch(/^root:/m)
  })

  it('a credential file created while the server runs stays hidden, also in a home that held none at its start', async () => {
    const w = world()
    const bare = path.join(w.root, 'bare-home')
    fs.mkdirSync(bare)
    fs.writeFileSync(path.join(bare, 'notes.txt'), 'ordinary file')
    const config = {
      name: 'probe',
      command: '/bin/sh',
      args: ['-c', `echo READY; sleep 3; cat ${bare}/.pgpass ${bare}/.netrc ${bare}/notes.txt 2>&1; ls -A ${bare}`],
      protocol: 'auto',
      enabled: true,
      trust: 'manual',
    } as ServerConfig & { command: string }
    const spec = launchSpec(
      config,
      { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: bare },
      { ctx: { dataDir: w.dataDir, configPath: w.configPath }, mode: 'run' },
    )
    const child = spawn(spec.command, spec.args, { env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
    const exited = new Promise((r) => child.once('exit', r))
    await vi.waitFor(() => expect(out).toContain('READY'), { timeout: 10_000 })
    fs.writeFileSync(path.join(bare, '.pgpass'), 'db:5432:*:me:LATE-PG-SECRET')
    fs.writeFileSync(path.join(bare, '.netrc'), 'machine x password LATE-NETRC-SECRET')
    await exited
    spec.cleanup()
    expect(out).toContain('ordinary file')
    expect(out).not.toContain('LATE-PG-SECRET')
    expect(out).not.toContain('LATE-NETRC-SECRET')
    expect(out).not.toMatch(/^\.pgpass$/m)
  })

  it('symlinks into hidden places lead nowhere', () => {
    const w = world()
    const { out } = run(w, `cat ${w.files}/innocent.txt; ls ${w.files}/data-link/; cat ${w.files}/data-link/instance.key; echo done`, {
      sandbox: { fs_write: [w.files] },
    })
    expect(out).not.toContain('PRIVATE KEY')
    expect(out).not.toContain('INSTANCE-KEY')
    expect(out).toContain('done')
  })

  it("has its own PID namespace: Toolgate's process, environment and root are out of sight", () => {
    const w = world()
    const me = process.pid
    const { out } = run(
      w,
      `ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' '; echo; cat /proc/${me}/environ; echo "ppid=$PPID"; ls /proc/${me}/root/ 2>&1 | head -1`,
    )
    const pids = out.split('\n')[0].trim().split(/\s+/).map(Number)
    expect(pids.length).toBeLessThan(6)
    expect(pids).not.toContain(me)
    expect(out).not.toContain('PATH=') // no environ of the parent
    expect(out).toMatch(/ppid=[01]\b/)
  })

  it('the filesystem is read-only except its temp dir, caches, cwd and fs_write grants', () => {
    const w = world()
    const cwd = path.join(w.root, 'work')
    fs.mkdirSync(cwd)
    const { out } = run(
      w,
      [
        `echo a > ${w.elsewhere}/x && echo WROTE-ELSEWHERE`,
        `echo a > ${w.home}/new && echo WROTE-HOME`,
        `echo a > ${w.files}/granted.txt && echo WROTE-GRANTED`,
        `echo a > ${cwd}/in-cwd.txt && echo WROTE-CWD`,
        `echo a > /tmp/scratch && echo WROTE-TMP`,
        `mkdir -p ${w.home}/.npm/_cacache && echo a > ${w.home}/.npm/_cacache/x && echo WROTE-NPM`,
        `echo a > ${w.configPath} && echo WROTE-CONFIG`,
        `echo a > ${w.dataDir}/state.json && echo WROTE-DATA`,
      ].join('; '),
      { cwd, sandbox: { fs_write: [w.files] } },
    )
    expect(out).toContain('WROTE-GRANTED')
    expect(out).toContain('WROTE-CWD')
    expect(out).toContain('WROTE-TMP')
    expect(out).toContain('WROTE-NPM')
    for (const bad of ['WROTE-ELSEWHERE', 'WROTE-HOME', 'WROTE-CONFIG', 'WROTE-DATA']) expect(out).not.toContain(bad)
    expect(fs.existsSync(path.join(w.elsewhere, 'x'))).toBe(false)
    expect(fs.readFileSync(w.configPath, 'utf8')).toContain('CONFIG-KEY')
    expect(fs.existsSync(path.join(w.files, 'granted.txt'))).toBe(true)
    expect(fs.existsSync('/tmp/scratch') && fs.readFileSync('/tmp/scratch', 'utf8') === 'a\n').toBe(false) // the temp dir was private
  })

  it("/tmp is private: other programs' temp files are out of sight", () => {
    const w = world()
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-other-program-'))
    roots.push(other)
    fs.writeFileSync(path.join(other, 'agent.sock.txt'), 'someone else')
    const { out } = run(w, `ls ${w.files} 2>&1; cat ${other}/agent.sock.txt 2>&1; ls /tmp | tr '\\n' ' '; echo END`)
    expect(out).toMatch(/No such file|cannot access/)
    expect(out).not.toContain('someone else')
    const listing = out.split('\n').find((l) => l.endsWith('END')) ?? ''
    expect(listing).not.toContain(path.basename(other))
  })

  it('an explicit grant inside a hidden folder opens just that path', () => {
    const w = world()
    const { out } = run(w, `cat ${w.home}/.ssh/known_hosts; echo; cat ${w.home}/.ssh/id_rsa; echo END`, { sandbox: { fs_read: ['~/.ssh/known_hosts'] } })
    expect(out).toContain('github.com ssh-ed25519')
    expect(out).not.toContain('PRIVATE KEY')
  })

  it("grants into Toolgate's data dir or config file are refused, also through a symlink", () => {
    const w = world()
    expect(() => run(w, 'true', { sandbox: { fs_read: [path.join(w.dataDir, 'instance.key')] } })).toThrow(SandboxGrantError)
    expect(() => run(w, 'true', { sandbox: { fs_write: [`${w.files}/data-link`] } })).toThrow(/data dir/)
    expect(() => run(w, 'true', { cwd: w.dataDir })).toThrow(/data dir/)
    expect(() => run(w, 'true', { sandbox: { fs_read: [w.configPath] } })).toThrow(/config file/)
    expect(() => run(w, 'true', { sandbox: { fs_read: [`${w.files}/innocent.txt`] } })).toThrow(/through a symlink/)
  })

  it("attack: Toolgate's compile cache kept outside the data dir ($TOOLGATE_COMPILE_CACHE_DIR) is hidden, and a grant into it refused (compiled code is code)", () => {
    const w = world()
    // in the home, which the server sees (read-only)
    const cache = path.join(w.home, 'toolgate-compile-cache')
    fs.mkdirSync(path.join(cache, 'v20.0.0-x64-0123456789abcdef'), { recursive: true })
    fs.writeFileSync(path.join(cache, 'v20.0.0-x64-0123456789abcdef', 'cli-0'), 'COMPILED-CODE')
    const before = process.env.TOOLGATE_COMPILE_CACHE_DIR
    process.env.TOOLGATE_COMPILE_CACHE_DIR = cache
    try {
      // before: the folder was as visible as any other, and fs_write into it was granted
      const { out } = run(w, `cat ${w.home}/notes.txt; echo; cat ${cache}/*/cli-0 2>&1; echo; ls ${cache} 2>&1; echo END`)
      expect(out).toContain('ordinary file')
      expect(out).not.toContain('COMPILED-CODE')
      expect(out).not.toContain('v20.0.0-x64')
      expect(() => run(w, 'true', { sandbox: { fs_write: [path.join(cache, 'v20.0.0-x64-0123456789abcdef')] } })).toThrow(/compile cache/)
      expect(() => run(w, 'true', { sandbox: { fs_write: [cache] } })).toThrow(SandboxGrantError)
    } finally {
      if (before === undefined) delete process.env.TOOLGATE_COMPILE_CACHE_DIR
      else process.env.TOOLGATE_COMPILE_CACHE_DIR = before
    }
  })

  it('network: a loopback listener of the host is out of reach, unless its port is granted (sandbox-network.test.ts: the rest)', async () => {
    const w = world()
    const probe = `${process.execPath} -e "require('net').connect(${port}, '127.0.0.1').on('data', d => { console.log('GOT ' + d); process.exit(0) }).on('error', e => { console.log('ERR ' + e.code); process.exit(0) })"`
    expect(await runAsync(w, probe)).toContain('ERR ECONNREFUSED')
    expect(await runAsync(w, probe, { sandbox: { network: false } })).toContain('ERR ECONNREFUSED')
    expect(await runAsync(w, probe, {}, 'inspect')).toContain('ERR ECONNREFUSED')
    expect(await runAsync(w, probe, { sandbox: { loopback: [port] } })).toContain('GOT hello')
    expect(await runAsync(w, probe, { sandbox: { loopback: [port] } }, 'inspect-network')).toContain('ERR ECONNREFUSED')
  })

  it('inspect: nothing writable but temp and caches, whatever the grants; even sandbox: false is inspected in the sandbox', () => {
    const w = world()
    const script = `echo a > ${w.files}/x && echo WROTE-GRANTED; echo a > /tmp/y && echo WROTE-TMP; cat ${w.home}/.ssh/id_rsa; echo END`
    const out = run(w, script, { sandbox: { fs_write: [w.files] } }, 'inspect').out
    expect(out).not.toContain('WROTE-GRANTED')
    expect(out).toContain('WROTE-TMP')
    const optedOut = run(w, script, { sandbox: false }, 'inspect')
    expect(optedOut.spec.mechanism).toBe('bwrap')
    expect(optedOut.out).not.toContain('PRIVATE KEY')
  })

  it("sandbox: false runs the server directly, with the user's full rights", () => {
    const w = world()
    const { out, spec } = run(w, `cat ${w.home}/.ssh/id_rsa; echo; cat ${w.dataDir}/instance.key`, { sandbox: false })
    expect(spec.mechanism).toBeNull()
    expect(out).toContain('PRIVATE KEY')
    expect(out).toContain('INSTANCE-KEY')
  })

  it('cannot regain capabilities to undo the covers (Toolgate may run as root)', () => {
    const w = world()
    const { out } = run(w, `umount ${w.home}/.ssh 2>&1; mount -o remount,rw / 2>&1; cat ${w.home}/.ssh/id_rsa; grep CapEff /proc/self/status`)
    expect(out).not.toContain('PRIVATE KEY')
    expect(out).toMatch(/CapEff:\s*0+\s/)
  })
})
