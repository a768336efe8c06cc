// The network of a sandboxed server for real: launchSpec() builds the command
// line (pasta around bwrap), and a probe run through it tries what a malicious server would:
// the host's loopback (Toolgate's port, other local services), the host's own addresses, an
// abstract Unix socket of the host (an X server listens on one), and the outside network. Also
// as an unprivileged user, and on a machine without pasta. bwrap and passt must be installed
// (.ci/run installs them).
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchSpec, networkSupport, sandboxSupport } from '../../src/main/core/upstream/sandbox'
import { isolationOf } from '../../src/main/core/upstream/sandbox/view'
import type { ServerConfig } from '../../src/shared/config-schema'
import {
  abstractListener,
  defaultGateways,
  helloListener,
  hostAddresses,
  hostAddresses6,
  NO_REGISTRY,
  registryReachable,
  REGISTRY_HOST,
} from '../helpers/network'
import { ROOT } from '../helpers/cli'

const support = sandboxSupport()
const roots: string[] = []
let loop: Awaited<ReturnType<typeof helloListener>>
let other: Awaited<ReturnType<typeof helloListener>>
let wide: Awaited<ReturnType<typeof helloListener>>
let dual: Awaited<ReturnType<typeof helloListener>>
let abstract: Awaited<ReturnType<typeof abstractListener>>
const ABSTRACT = `toolgate-test-${process.pid}`
let probe: string

beforeAll(async () => {
  expect(support.available, `bwrap must work on this machine: ${support.reason}`).toBe(true)
  expect(networkSupport(support.binary).available, `pasta must work on this machine: ${networkSupport(support.binary).reason}`).toBe(true)
  loop = await helloListener('127.0.0.1')
  other = await helloListener('127.0.0.1')
  wide = await helloListener('0.0.0.0')
  dual = await helloListener('::') // IPv6 and IPv4: a service on every address
  abstract = await abstractListener(ABSTRACT)
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-net-probe-')))
  fs.chmodSync(dir, 0o755)
  roots.push(dir)
  probe = path.join(dir, 'probe.js')
  // one line per target: "<target> GOT <text>", "<target> CONNECTED" (TLS ports send nothing first), "<target> ERR <code>"
  fs.writeFileSync(
    probe,
    `const net = require('net')
const one = (t) => new Promise((resolve) => {
  const where = t.startsWith('@') ? { path: '\\0' + t.slice(1) } : t.startsWith('/') ? { path: t } : { host: t.slice(0, t.lastIndexOf(':')), port: Number(t.slice(t.lastIndexOf(':') + 1)) }
  const s = net.connect(where)
  const done = (text) => { s.destroy(); console.log(t + ' ' + text); resolve() }
  s.setTimeout(3000, () => done('ERR TIMEOUT'))
  s.on('connect', () => { if (where.port === 443) done('CONNECTED') })
  s.on('data', (d) => done('GOT ' + String(d).trim()))
  s.on('error', (e) => done('ERR ' + e.code))
})
;(async () => { for (const t of [...process.argv.slice(2), ...(process.env.PROBE_TARGETS ? process.env.PROBE_TARGETS.split(',') : [])]) await one(t) })()
`,
    { mode: 0o644 },
  )
})

afterAll(async () => {
  await Promise.all([loop.close(), other.close(), wide.close(), dual.close(), abstract.close()])
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
})

function world() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-net-')))
  roots.push(root)
  fs.chmodSync(root, 0o777)
  const home = path.join(root, 'home')
  const dataDir = path.join(root, 'data')
  for (const d of [home, dataDir]) fs.mkdirSync(d, { mode: 0o777 })
  fs.chmodSync(home, 0o777)
  fs.chmodSync(dataDir, 0o777)
  return { root, home, dataDir, configPath: path.join(root, 'mcp_config.json') }
}

/** Runs the probe in the sandbox the entry would get; returns target → answer. */
function reach(targets: string[], extra: Partial<ServerConfig> = {}, mode: 'run' | 'inspect' | 'inspect-network' = 'run'): Promise<Record<string, string>> {
  const w = world()
  // paths go in the environment: an absolute path among the arguments has its folder shown to the server
  const paths = targets.filter((t) => t.startsWith('/'))
  const config = {
    name: 'probe',
    command: process.execPath,
    args: [probe, ...targets.filter((t) => !t.startsWith('/'))],
    protocol: 'auto',
    enabled: true,
    trust: 'manual',
    ...extra,
  } as ServerConfig & {
    command: string
  }
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: w.home, PROBE_TARGETS: paths.join(',') }
  const spec = launchSpec(config, env, { ctx: { dataDir: w.dataDir, configPath: w.configPath }, mode })
  return new Promise((resolve) =>
    execFile(spec.command, spec.args, { env: spec.env, timeout: 30_000 }, (_e, stdout, stderr) => {
      spec.cleanup()
      resolve(answers(`${stdout}\n${stderr}`))
    }),
  )
}

function answers(out: string): Record<string, string> {
  const got: Record<string, string> = {}
  for (const line of out.split('\n')) {
    const m = /^(\S+) (GOT .*|CONNECTED|ERR \S+)$/.exec(line.trim())
    if (m) got[m[1]] = m[2]
  }
  return got
}

const lo = (port: number) => `127.0.0.1:${port}`

describe('the network of a sandboxed server (Linux: its own namespace, pasta for outbound)', () => {
  it('by default: no path to the host loopback, the host own addresses, nor its abstract sockets', async () => {
    // the gateway too: pasta maps it to the host's loopback unless told not to (--no-map-gw)
    const gateways = defaultGateways().map((g) => `${g}:${dual.port}`)
    const v6 = [`::1:${dual.port}`, ...hostAddresses6().map((a) => `${a}:${dual.port}`)]
    const targets = [lo(loop.port), `localhost:${loop.port}`, ...hostAddresses().map((a) => `${a}:${wide.port}`), ...v6, ...gateways, `@${ABSTRACT}`]
    const got = await reach(targets)
    for (const t of targets) {
      expect(got[t], `${t}: ${JSON.stringify(got)}`).toBeDefined()
      expect(got[t], t).toMatch(/^ERR /)
    }
  })

  it('the same attacks succeed with sandbox: false (the test can fail)', async () => {
    const v6 = [`::1:${dual.port}`, ...hostAddresses6().map((a) => `${a}:${dual.port}`)]
    const got = await reach([lo(loop.port), `@${ABSTRACT}`, ...hostAddresses().map((a) => `${a}:${wide.port}`), ...v6], { sandbox: false })
    expect(got[lo(loop.port)]).toBe('GOT hello')
    expect(got[`@${ABSTRACT}`]).toBe('GOT hello')
    for (const t of v6) expect(got[t], t).toBe('GOT hello')
  })

  it('by default: the outside network works, names resolve (DNS through pasta)', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    const got = await reach([`${REGISTRY_HOST}:443`])
    expect(got[`${REGISTRY_HOST}:443`]).toBe('CONNECTED')
  })

  it('sandbox.loopback grants one host service by port, and only that one', async (ctx) => {
    const got = await reach([lo(loop.port), `localhost:${loop.port}`, lo(other.port), `@${ABSTRACT}`], { sandbox: { loopback: [loop.port] } })
    expect(got[lo(loop.port)]).toBe('GOT hello')
    expect(got[`localhost:${loop.port}`]).toBe('GOT hello')
    expect(got[lo(other.port)]).toMatch(/^ERR /)
    expect(got[`@${ABSTRACT}`]).toMatch(/^ERR /)
    // with network off too: the granted port, nothing else
    const off = await reach([lo(loop.port), lo(other.port), `${REGISTRY_HOST}:443`], { sandbox: { network: false, loopback: [loop.port] } })
    expect(off[lo(loop.port)]).toBe('GOT hello')
    expect(off[lo(other.port)]).toMatch(/^ERR /)
    expect(off[`${REGISTRY_HOST}:443`]).toMatch(/^ERR /)
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    const open = await reach([`${REGISTRY_HOST}:443`], { sandbox: { loopback: [loop.port] } })
    expect(open[`${REGISTRY_HOST}:443`]).toBe('CONNECTED')
  })

  it('network: false: nothing at all; Inspect: no network and no loopback grant; Inspect with network: outside only', async () => {
    const targets = [lo(loop.port), `@${ABSTRACT}`, `${REGISTRY_HOST}:443`]
    for (const got of [await reach(targets, { sandbox: { network: false } }), await reach(targets, { sandbox: { loopback: [loop.port] } }, 'inspect')]) {
      for (const t of targets) expect(got[t], t).toMatch(/^ERR /)
    }
    const withNet = await reach([lo(loop.port), `@${ABSTRACT}`], { sandbox: { loopback: [loop.port] } }, 'inspect-network')
    expect(withNet[lo(loop.port)]).toMatch(/^ERR /)
    expect(withNet[`@${ABSTRACT}`]).toMatch(/^ERR /)
  })

  it("a loopback grant of Toolgate's own port is refused", () => {
    const w = world()
    fs.writeFileSync(path.join(w.dataDir, 'instance.json'), JSON.stringify({ pid: process.pid, url: `http://127.0.0.1:${loop.port}` }))
    const config = {
      name: 'p',
      command: process.execPath,
      args: [probe],
      protocol: 'auto',
      enabled: true,
      trust: 'manual',
      sandbox: { loopback: [loop.port] },
    } as ServerConfig & {
      command: string
    }
    expect(() =>
      launchSpec(config, { PATH: process.env.PATH ?? '', HOME: w.home }, { ctx: { dataDir: w.dataDir, configPath: w.configPath }, mode: 'run' }),
    ).toThrow(/Toolgate's own port/)
  })
})

describe('Unix sockets of local services (/run is private, like /tmp)', () => {
  const dir = `/run/toolgate-test-${process.pid}`
  let server: net.Server | null = null

  beforeAll(async () => {
    try {
      fs.mkdirSync(dir, { mode: 0o755 })
    } catch {
      return // not root: the test skips
    }
    server = net.createServer((s) => s.end('hello\n'))
    await new Promise<void>((r) => server?.listen(path.join(dir, 'service.sock'), r))
  })
  afterAll(async () => {
    if (server) await new Promise((r) => server?.close(r))
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("a local service's socket in /run is out of reach unless its folder is granted", async (ctx) => {
    if (!server) return ctx.skip('needs root to make a folder in /run')
    const sock = path.join(dir, 'service.sock')
    expect((await reach([sock]))[sock]).toMatch(/^ERR /)
    expect((await reach([sock], { sandbox: { network: false } }))[sock]).toMatch(/^ERR /)
    expect((await reach([sock], { sandbox: { fs_read: [dir] } }))[sock]).toBe('GOT hello')
    expect((await reach([sock], { sandbox: false }))[sock]).toBe('GOT hello')
  })
})

describe('as an unprivileged user', () => {
  const setpriv = spawnSync('sh', ['-c', 'command -v setpriv']).stdout?.toString().trim()

  it('the same namespace and grants (pasta maps the user; the server keeps its uid)', async (ctx) => {
    if (process.getuid?.() !== 0 || !setpriv) return ctx.skip('needs root (to switch to nobody) and setpriv')
    const w = world()
    const core = path.join(ROOT, 'out/main/core.js')
    expect(fs.existsSync(core), `${core} is missing: run \`npm run build\` first (the test runs the built core as nobody)`).toBe(true)
    const script = `
const core = require(${JSON.stringify(core)})
const { execFileSync } = require('child_process')
const run = (sandbox) => {
  const spec = core.launchSpec({ name: 'p', command: process.execPath, args: [${JSON.stringify(probe)}, ${JSON.stringify(lo(loop.port))}, ${JSON.stringify(lo(other.port))}, '@${ABSTRACT}'], protocol: 'auto', enabled: true, trust: 'manual', sandbox },
    { PATH: process.env.PATH, HOME: ${JSON.stringify(w.home)} }, { ctx: { dataDir: ${JSON.stringify(w.dataDir)}, configPath: ${JSON.stringify(w.configPath)} }, mode: 'run' })
  try { return execFileSync(spec.command, spec.args, { env: spec.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 }) } catch (e) { return String(e.stdout) + String(e.stderr) }
}
console.log('DEFAULT'); console.log(run(undefined)); console.log('GRANTED'); console.log(run({ loopback: [${loop.port}] }))
const id = core.launchSpec({ name: 'i', command: '/usr/bin/id', args: ['-u'], protocol: 'auto', enabled: true, trust: 'manual' }, { PATH: process.env.PATH, HOME: ${JSON.stringify(w.home)} }, { ctx: { dataDir: ${JSON.stringify(w.dataDir)}, configPath: ${JSON.stringify(w.configPath)} }, mode: 'run' })
console.log('UID ' + execFileSync(id.command, id.args, { env: id.env, encoding: 'utf8' }).trim())
`
    // not spawnSync: the listeners live in this process and must answer meanwhile
    const out = await new Promise<string>((resolve) =>
      execFile(
        setpriv,
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script],
        { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: w.home }, cwd: w.root },
        (_e, stdout, stderr) => resolve(`${stdout}${stderr}`),
      ),
    )
    const [, defaults = '', granted = ''] = out.split(/^(?:DEFAULT|GRANTED)$/m)
    expect(answers(defaults)[lo(loop.port)], out).toMatch(/^ERR /)
    expect(answers(defaults)[`@${ABSTRACT}`], out).toMatch(/^ERR /)
    expect(answers(granted)[lo(loop.port)], out).toBe('GOT hello')
    expect(answers(granted)[lo(other.port)], out).toMatch(/^ERR /)
    expect(out).toMatch(/^UID 65534$/m)
  })
})

describe('a machine without pasta', () => {
  const saved = process.env.TOOLGATE_PASTA
  afterAll(() => {
    if (saved === undefined) delete process.env.TOOLGATE_PASTA
    else process.env.TOOLGATE_PASTA = saved
  })

  it('a server with network on shares the host network, and every view says so; one without network stays cut off', async () => {
    process.env.TOOLGATE_PASTA = '/nonexistent/pasta'
    const net = networkSupport(support.binary)
    expect(net).toMatchObject({ available: false, reason: expect.stringContaining('/nonexistent/pasta') })
    const entry = { name: 'p', command: 'node', protocol: 'auto', enabled: true, trust: 'manual' } as ServerConfig
    expect(isolationOf(entry, support)).toMatchObject({ isolated: true, network_risk: expect.stringContaining('pasta') })
    expect(isolationOf({ ...entry, sandbox: { network: false } }, support).network_risk).toBeUndefined()
    expect((await reach([lo(loop.port)]))[lo(loop.port)]).toBe('GOT hello')
    expect((await reach([lo(loop.port)], { sandbox: { network: false } }))[lo(loop.port)]).toMatch(/^ERR /)
  })
})
