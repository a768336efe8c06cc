// Inspect of npx / uvx servers, through a real `toolgate serve`: a real `npx`
// downloads a real package from the npm registry while inspected (its registry is the one thing
// it may reach, through the egress proxy) into the server's own cache, not yours; the program
// that npx starts gets no other network; "Inspect with network" is offered only when the failure
// was about the network (not `spawn uvx ENOENT`, a missing secret, a crash). The npm registry
// must be reachable for the npx checks (they skip, saying so, otherwise).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, runCli, startServe, tempDir, waitForServerState, writeJson, ROOT, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { NO_REGISTRY, REGISTRY_HOST, registryReachable } from '../helpers/network'
import { which } from '../../src/main/core/upstream/sandbox/detect'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')

let serve: Serve
let home: string
let dataDir: string

beforeAll(async () => {
  assertBuilt()
  const tmp = tempDir('toolgate-sandbox-inspect-')
  home = path.join(tmp, 'home')
  dataDir = path.join(tmp, 'data')
  fs.mkdirSync(home)
  const work = path.join(tmp, 'work')
  fs.mkdirSync(work)
  // a package npx can run (packed here): the attacker fixture, needing example.com at its start
  const pkg = path.join(tmp, 'attacker-pkg')
  fs.mkdirSync(pkg)
  fs.copyFileSync(ATTACKER, path.join(pkg, 'server.mjs'))
  fs.chmodSync(path.join(pkg, 'server.mjs'), 0o755)
  writeJson(path.join(pkg, 'package.json'), { name: 'toolgate-attacker-fixture', version: '1.0.0', bin: { 'toolgate-attacker-fixture': 'server.mjs' } })
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', tmp], { cwd: pkg, encoding: 'utf8' })
  expect(packed.status, packed.stderr).toBe(0)
  const tarball = path.join(tmp, 'toolgate-attacker-fixture-1.0.0.tgz')
  const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
    mcpServers: {
      // cwd outside this repo: npx would run the copy in its node_modules instead of downloading
      'npx-real': { command: 'npx', args: ['-y', '@modelcontextprotocol/server-sequential-thinking'], cwd: work },
      'npx-sneaky': { command: 'npx', args: ['-y', '-p', tarball, 'toolgate-attacker-fixture'], env: { NEED_NETWORK: 'example.com:443' }, cwd: work },
      'no-uvx': { command: 'uvx', args: ['mcp-server-fetch'] },
      'needs-secret': { command: process.execPath, args: [ATTACKER], env: { TOKEN: '${secret:NOT_SET_ANYWHERE}' } },
      crasher: { command: process.execPath, args: ['-e', "console.error('Error: boom'); process.exit(1)"] },
      'needs-net': { command: process.execPath, args: [ATTACKER], env: { NEED_NETWORK: `${REGISTRY_HOST}:443` } },
      // runs (approved) with an allowlist that does not name the registry: npx still downloads itself
      'npx-listed': {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-sequential-thinking'],
        cwd: work,
        quarantined: false,
        sandbox: { network: ['api.example.com'] },
      },
    },
  })
  serve = await startServe({ configPath, dataDir, env: { HOME: home } })
})

useCleanup(() => stopServe(serve))

const inspect = (name: string) => apiRequest(serve, 'POST', `/api/v1/servers/${name}/inspect`)

describe('an npx server with an allowlist', () => {
  it('reaches its registry too when it runs (it downloads itself first), and every view says so', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    await waitForServerState(serve, 'npx-listed', 'connected', 200_000)
    const r = await serve.api<{ servers: Array<{ name: string; isolation: { profile: { network: unknown } } }> }>('GET', '/api/v1/servers')
    expect(r.json.servers.find((x) => x.name === 'npx-listed')?.isolation.profile.network).toEqual(['api.example.com', REGISTRY_HOST])
  }, 240_000)
})

describe('Inspect of npx / uvx servers', () => {
  it('a real npx server: it downloads its package from the registry into its own cache and lists its tools', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    const r = await runCli(['servers', 'inspect', 'npx-real', ...serve.flags], { timeoutMs: 200_000 })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('npx-real:sequentialthinking')
    expect(r.stdout).toContain(`its only network was the npm registry (${REGISTRY_HOST})`)
    // into the server's own cache, not the user's ~/.npm
    const caches = fs.readdirSync(path.join(dataDir, 'sandbox-caches')).filter((d) => d.startsWith('npx-real@'))
    expect(caches).toHaveLength(1)
    expect(fs.existsSync(path.join(dataDir, 'sandbox-caches', caches[0], 'npm', '_npx'))).toBe(true)
    expect(fs.readdirSync(path.join(home, '.npm'))).toEqual([])
  }, 240_000)

  it('the program npx starts gets no other network: it cannot reach example.com, and the failure offers Inspect with network', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    const r = await inspect('npx-sneaky')
    expect(r.status, r.text).toBe(502)
    expect(r.json.error.code).toBe('inspect_failed_offline')
    expect(r.json.error.message).toMatch(/cannot download the package: denied: (EAI_AGAIN|ENOTFOUND)/)
    expect(r.json.error.message).toContain(`Inspect lets it reach only the npm registry (${REGISTRY_HOST})`)
    expect(r.json.error.message).toContain('Inspect with network')
  }, 240_000)

  it('a server that needs the network (not a package runner): Inspect with network is offered', async () => {
    const r = await inspect('needs-net')
    expect(r.status, r.text).toBe(502)
    expect(r.json.error.code).toBe('inspect_failed_offline')
    expect(r.json.error.message).toContain('Inspect runs a server without network access')
  })

  it('no Inspect with network for spawn uvx ENOENT, a missing secret, or a crash', async () => {
    for (const name of [...(which('uvx') ? [] : ['no-uvx']), 'needs-secret', 'crasher']) {
      const r = await inspect(name)
      expect(r.status, `${name}: ${r.text}`).toBe(502)
      expect(r.json.error.code, name).toBe('inspect_failed')
      expect(r.json.error.message, name).not.toContain('Inspect with network')
    }
    expect((await inspect('no-uvx')).json.error.message).toMatch(/spawn uvx ENOENT|uvx/)
    expect((await inspect('needs-secret')).json.error.message).toContain('secret NOT_SET_ANYWHERE is not set')
    const cli = await runCli(['servers', 'inspect', 'crasher', ...serve.flags])
    expect(cli.code).toBe(1)
    expect(cli.stderr).not.toContain('--network')
  })
})
