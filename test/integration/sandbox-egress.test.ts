// The egress allowlist from outside: a server with sandbox.network: [hosts]
// reaches those hosts through Toolgate's egress proxy and nothing else. A real `toolgate serve`
// runs the attacker fixture with an allowlist and tries the ways around a proxy: a direct
// connection (by name and by address), its own DNS, the proxy for another host, for Toolgate's
// own port, with a made-up token; then curl in a real sandbox does the same with the usual
// HTTPS_PROXY handling. Reaching the listed host needs the outside network (the npm registry
// here); those checks skip, saying so, where it cannot be reached.
import { execFile } from 'node:child_process'
import dns from 'node:dns/promises'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchSpec, sandboxSupport, startEgressProxy } from '../../src/main/core/upstream/sandbox'
import type { ServerConfig } from '../../src/shared/config-schema'
import { assertBuilt, runCli, startServe, tempDir, waitFor, waitForServerState, writeJson, ROOT, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { readOk, type McpHandle } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'
import { helloListener, NO_REGISTRY, REGISTRY_HOST, registryReachable } from '../helpers/network'

const ATTACKER = path.join(ROOT, 'test/fixtures/sandbox/attacker-server.mjs')

describe('a server with an allowlist, through a real serve', () => {
  let serve: Serve
  let mcp: McpHandle
  let home: string

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-sandbox-egress-')
    home = path.join(tmp, 'home')
    fs.mkdirSync(home)
    const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
      mcpServers: {
        listed: { command: process.execPath, args: [ATTACKER], quarantined: false, sandbox: { network: [REGISTRY_HOST] } },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { HOME: home } })
    await waitForServerState(serve, 'listed', 'connected')
    mcp = await mcpOn(serve)
  })

  useCleanup(async () => {
    await mcp?.close()
    await stopServe(serve)
  })

  function attack(tool: string, args: Record<string, unknown> = {}): Promise<string> {
    return readOk(mcp, `listed:${tool}`, args)
  }

  it('no way around the proxy: no direct connection (by name or address), no DNS of its own, not the host loopback', async () => {
    expect(await attack('connect', { host: REGISTRY_HOST, port: 443 })).toMatch(/^denied: (EAI_AGAIN|ENOTFOUND)/)
    expect(await attack('resolve', { host: REGISTRY_HOST })).toMatch(/^denied: (EAI_AGAIN|ENOTFOUND)/)
    expect(await attack('resolve', { host: 'exfiltrate-secret-data.example.com' })).toMatch(/^denied: (EAI_AGAIN|ENOTFOUND)/)
    const address = await dns.lookup(REGISTRY_HOST).then(
      (r) => r.address,
      () => '203.0.113.80',
    )
    expect(await attack('connect', { host: address, port: 443 })).toMatch(/^denied: (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)/)
    expect(await attack('connect', { host: '8.8.8.8', port: 53 })).toMatch(/^denied: (ENETUNREACH|EHOSTUNREACH)/)
    expect(await attack('connect', { host: '127.0.0.1', port: serve.port })).toMatch(/^denied: ECONNREFUSED/)
  })

  it('the proxy lets through only the listed host, never Toolgate nor the loopback, and not without its token', async () => {
    const other = await attack('proxy_connect', { host: 'example.com', port: 443 })
    expect(other).toMatch(/^denied: HTTP\/1\.1 403 /)
    expect(other).toContain(`not in sandbox.network of server "listed" (allowed: ${REGISTRY_HOST})`)
    expect(await attack('proxy_connect', { host: '127.0.0.1', port: serve.port })).toMatch(/^denied: HTTP\/1\.1 403 /)
    expect(await attack('proxy_connect', { host: 'localhost', port: serve.port })).toMatch(/^denied: HTTP\/1\.1 403 /)
    expect(await attack('proxy_connect', { host: REGISTRY_HOST, port: 22 })).toMatch(/^denied: HTTP\/1\.1 403 /)
    expect(await attack('proxy_connect', { host: REGISTRY_HOST, port: 443, token: 'made-up' })).toMatch(/^denied: HTTP\/1\.1 407 /)
    // the refusal is in the server's log
    await waitFor(() => serve.stderr().includes('egress to example.com:443 refused'), 5000, 'the refusal in the log')
  })

  it('the listed host answers through the proxy', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    expect(await attack('proxy_connect', { host: REGISTRY_HOST, port: 443 })).toMatch(/^ok: HTTP\/1\.1 200 Connection Established/)
    expect(await attack('env')).toContain('"HTTPS_PROXY"')
  })

  it('every surface shows the allowlist', async () => {
    const r = await serve.api<{ servers: Array<{ name: string; isolation: { profile: { network: unknown } } }> }>('GET', '/api/v1/servers')
    expect(r.json.servers.find((s) => s.name === 'listed')?.isolation.profile.network).toEqual([REGISTRY_HOST])
    const list = await runCli(['servers', 'list', ...serve.flags])
    expect(list.stdout).toContain(`  listed: network: only ${REGISTRY_HOST}; writes:`)
  })
})

describe('curl in a real sandbox with an allowlist (HTTPS_PROXY as programs use it)', () => {
  const support = sandboxSupport()
  const roots: string[] = []
  let local: Awaited<ReturnType<typeof helloListener>>

  beforeAll(async () => {
    expect(support.available, support.reason ?? '').toBe(true)
    await startEgressProxy()
    local = await helloListener('127.0.0.1')
  })
  afterAll(async () => {
    await local.close()
    for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
  })

  function run(script: string, sandbox: ServerConfig['sandbox']): Promise<string> {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-egress-')))
    roots.push(root)
    const home = path.join(root, 'home')
    fs.mkdirSync(home)
    const config = { name: 'curl', command: '/bin/sh', args: ['-c', script], protocol: 'auto', enabled: true, trust: 'manual', sandbox } as ServerConfig & {
      command: string
    }
    const spec = launchSpec(
      config,
      { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
      { ctx: { dataDir: path.join(root, 'data'), configPath: path.join(root, 'c.json') }, mode: 'run' },
    )
    return new Promise((resolve) =>
      execFile(spec.command, spec.args, { env: spec.env, timeout: 60_000 }, (_e, stdout, stderr) => {
        spec.cleanup()
        resolve(`${stdout}\n${stderr}`)
      }),
    )
  }

  const CURL = 'curl -sS -m 20 -o /dev/null'

  it('the proxy is set, other hosts are refused by it, going around it fails (no DNS, no route), loopback is out of reach', async () => {
    const out = await run(
      [
        'echo "proxy=$HTTPS_PROXY"',
        `${CURL} -w 'OTHER %{http_code}\\n' https://example.com/ 2>&1`,
        `${CURL} --noproxy '*' -w 'DIRECT %{http_code}\\n' https://${REGISTRY_HOST}/ 2>&1`,
        `${CURL} --noproxy '*' --resolve ${REGISTRY_HOST}:443:104.16.0.35 -w 'BYADDRESS %{http_code}\\n' https://${REGISTRY_HOST}/ 2>&1`,
        `${CURL} --noproxy '*' -w 'LOOPBACK %{http_code}\\n' http://127.0.0.1:${local.port}/ 2>&1`,
        `getent hosts ${REGISTRY_HOST} || echo NODNS`,
      ].join('; '),
      { network: [REGISTRY_HOST] },
    )
    expect(out).toMatch(/proxy=http:\/\/toolgate:[^@]+@127\.0\.0\.1:\d+/)
    expect(out).toMatch(/CONNECT tunnel failed, response 403/)
    expect(out).toMatch(/Could not resolve host/)
    expect(out).toMatch(/(Network is unreachable|Couldn't connect|Failed to connect)/)
    expect(out).not.toContain('hello')
    expect(out).toContain('NODNS')
  })

  it('the listed host works over HTTPS through the proxy', async (ctx) => {
    if (!(await registryReachable())) return ctx.skip(NO_REGISTRY)
    const out = await run(`${CURL} -w 'LISTED %{http_code}\\n' https://${REGISTRY_HOST}/ 2>&1`, { network: [REGISTRY_HOST] })
    expect(out).toMatch(/LISTED 200/)
  })

  it('an empty allowlist is no network at all', async () => {
    const out = await run(`echo "proxy=[$HTTPS_PROXY]"; ${CURL} -w 'ANY %{http_code}\\n' https://example.com/ 2>&1`, { network: [] })
    expect(out).toContain('proxy=[]')
    expect(out).toMatch(/Could not resolve host|Couldn't connect/)
  })

  it('without pasta an allowlist fails closed: no network at all, not the host network', async () => {
    const saved = process.env.TOOLGATE_PASTA
    process.env.TOOLGATE_PASTA = '/nonexistent/pasta'
    try {
      const out = await run(
        `${CURL} -w 'VIAPROXY %{http_code}\\n' https://${REGISTRY_HOST}/ 2>&1; ${CURL} --noproxy '*' -w 'LOOP %{http_code}\\n' http://127.0.0.1:${local.port}/ 2>&1`,
        {
          network: [REGISTRY_HOST],
        },
      )
      expect(out).not.toMatch(/VIAPROXY 200/)
      expect(out).toMatch(/Couldn't connect|Failed to connect/)
    } finally {
      if (saved === undefined) delete process.env.TOOLGATE_PASTA
      else process.env.TOOLGATE_PASTA = saved
    }
  })
})
