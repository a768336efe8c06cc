// The egress allowlist (sandbox.network: [hosts]): how entries are written and matched, and what
// Toolgate's egress proxy refuses, talked to in-process with raw sockets the way a hostile server
// would: no or a wrong token, a host off the list, names and addresses that lead to this
// machine's loopback, its own addresses or the cloud metadata service, bad CONNECT targets.
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, ConfigError } from '../../src/main/core/config/load'
import { egressRuleFor, normalizeHost, parseEgressRule, parseEgressRules, type EgressRule } from '../../src/shared/egress'
import { EgressProxy, forbiddenAddress, parseAuthority } from '../../src/main/core/upstream/sandbox/egress-proxy'
import { hostAddresses } from '../helpers/network'

const rule = (t: string): EgressRule => {
  const r = parseEgressRule(t)
  if (typeof r === 'string') throw new Error(r)
  return r
}

describe('allowlist entries', () => {
  it('a host alone means HTTPS and HTTP; host:port that port; *.domain its subdomains; addresses too', () => {
    expect(rule('api.github.com')).toEqual({ host: 'api.github.com', wildcard: false, ports: [443, 80], text: 'api.github.com' })
    expect(rule('API.GitHub.com.:8443')).toMatchObject({ host: 'api.github.com', ports: [8443] })
    expect(rule('*.githubusercontent.com')).toMatchObject({ host: 'githubusercontent.com', wildcard: true, ports: [443, 80] })
    expect(rule('203.0.113.7:5000')).toMatchObject({ host: '203.0.113.7', ports: [5000] })
    expect(rule('[2001:db8::1]:443')).toMatchObject({ host: '2001:db8::1', ports: [443] })
    expect(rule('2001:db8::1')).toMatchObject({ host: '2001:db8::1', ports: [443, 80] })
  })

  it('says what is wrong with an entry', () => {
    expect(parseEgressRule('https://api.github.com/v3')).toBe('write a host (and port), not a URL: "api.github.com" instead of "https://api.github.com/v3"')
    expect(parseEgressRule('*')).toMatch(/would allow everything: write network: true/)
    expect(parseEgressRule('api.github.com:0')).toMatch(/port must be a number from 1 to 65535/)
    expect(parseEgressRule('api.github.com:99999')).toMatch(/port must be a number from 1 to 65535/)
    expect(parseEgressRule('user@api.github.com')).toMatch(/is not a host/)
    expect(parseEgressRule('api.*.com')).toMatch(/a wildcard is only "\*\." before a domain/)
    expect(parseEgressRule('*.com')).toMatch(/"\*\." goes before a domain with a dot/)
    expect(parseEgressRule('bad_host!')).toMatch(/is not a host name/)
    expect(parseEgressRule('')).toBe('a host must not be empty')
    expect(parseEgressRule('[::1')).toMatch(/\[address\]:port/)
  })

  it('the config names the entry and the problem', () => {
    const problem = (network: unknown): string => {
      try {
        parseConfig('/x/mcp_config.json', { mcpServers: { s: { command: 'node', sandbox: { network } } } })
        return 'valid'
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError)
        return (e as Error).message
      }
    }
    expect(problem(['api.github.com', '*.example.org:8443'])).toBe('valid')
    expect(problem([])).toBe('valid')
    expect(problem(['https://api.github.com'])).toMatch(/at \$\.mcpServers\.s\.sandbox\.network\[0\]: write a host \(and port\), not a URL/)
    expect(problem([42])).toMatch(/at \$\.mcpServers\.s\.sandbox\.network\[0\]: each host must be a string/)
    expect(problem('api.github.com')).toMatch(/at \$\.mcpServers\.s\.sandbox\.network: network must be true \(open\), false \(none\) or a list of the hosts/)
  })

  it('matches exactly: case and trailing dot do not matter; a wildcard is not its apex; other ports and look-alikes do not match', () => {
    const rules = parseEgressRules(['api.github.com', '*.githubusercontent.com', 'registry.example:4873'])
    expect(egressRuleFor(rules, 'API.GITHUB.COM.', 443)?.text).toBe('api.github.com')
    expect(egressRuleFor(rules, 'api.github.com', 80)?.text).toBe('api.github.com')
    expect(egressRuleFor(rules, 'api.github.com', 22)).toBeNull()
    expect(egressRuleFor(rules, 'api.github.com.evil.example', 443)).toBeNull()
    expect(egressRuleFor(rules, 'evilapi.github.com', 443)).toBeNull()
    expect(egressRuleFor(rules, 'github.com', 443)).toBeNull()
    expect(egressRuleFor(rules, 'raw.githubusercontent.com', 443)?.text).toBe('*.githubusercontent.com')
    expect(egressRuleFor(rules, 'githubusercontent.com', 443)).toBeNull()
    expect(egressRuleFor(rules, 'registry.example', 4873)?.text).toBe('registry.example:4873')
    expect(egressRuleFor(rules, 'registry.example', 443)).toBeNull()
    expect(egressRuleFor(rules, 'api.github.com\u0000.evil', 443)).toBeNull()
    expect(normalizeHost('[::1]')).toBe('::1')
    expect(normalizeHost('a b')).toBeNull()
  })
})

describe('addresses the proxy never connects to', () => {
  it('loopback, unspecified, link-local (cloud metadata), multicast, IPv4-mapped forms, and this machine', () => {
    for (const a of [
      '127.0.0.1',
      '127.1.2.3',
      '0.0.0.0',
      '169.254.169.254',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      // other spellings of the same addresses (an allowlist entry is taken as written)
      '0:0::1',
      '0000:0000:0000:0000:0000:0000:0000:0001',
      '::0',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::127.0.0.1',
      'FE80::1%eth0',
      '0.1.2.3',
    ]) {
      expect(forbiddenAddress(a, []), a).not.toBeNull()
    }
    for (const a of ['203.0.113.7', '10.1.2.3', '2001:db8::1']) expect(forbiddenAddress(a, []), a).toBeNull()
    expect(forbiddenAddress('192.0.2.99', ['192.0.2.99'])).toMatch(/own address/)
    expect(forbiddenAddress('::ffff:c000:263', ['192.0.2.99'])).toMatch(/own address/)
    expect(forbiddenAddress('2001:db8:0:0::5', ['2001:db8::5'])).toMatch(/own address/)
    expect(forbiddenAddress('not-an-address', [])).toMatch(/not an IP address/)
  })

  it('CONNECT targets: host:port, [v6]:port; anything else is refused', () => {
    expect(parseAuthority('api.github.com:443')).toEqual({ host: 'api.github.com', port: 443 })
    expect(parseAuthority('[2001:db8::1]:443')).toEqual({ host: '2001:db8::1', port: 443 })
    for (const bad of ['api.github.com', 'api.github.com:', 'a:b:443', 'user@host:443', 'host:99999', 'http://x:443'])
      expect(parseAuthority(bad), bad).toBeNull()
  })
})

describe('the egress proxy refuses (in process, raw sockets)', () => {
  const proxy = new EgressProxy()
  const warnings: string[] = []
  let token = ''
  let other = ''
  let local: net.Server
  let localPort = 0

  beforeAll(async () => {
    await proxy.start()
    local = net.createServer((s) => s.end('LOCAL-SECRET\n'))
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r))
    localPort = (local.address() as net.AddressInfo).port
    const own = hostAddresses()[0] ?? '192.0.2.1'
    const reg = proxy.register(
      'boxed',
      parseEgressRules(['api.example', `127.0.0.1:${localPort}`, `localhost:${localPort}`, `${own}:${localPort}`, '169.254.169.254:80']),
      { warn: (m) => void warnings.push(m) },
    )
    token = new URL(reg.url).password
    other = new URL(proxy.register('other', parseEgressRules(['only.other.example']), null).url).password
  })
  afterAll(async () => {
    await proxy.stop()
    await new Promise((r) => local.close(r))
  })

  /** Sends a request head; answers with the first line of the reply (and its body). */
  function ask(head: string): Promise<string> {
    return new Promise((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port: proxy.listenPort })
      let got = ''
      s.on('connect', () => s.write(head))
      s.on('data', (d) => (got += d))
      s.on('close', () => resolve(got))
      s.on('error', () => resolve(got))
      s.setTimeout(20_000, () => s.destroy())
    })
  }
  const auth = (t: string) => `Proxy-Authorization: Basic ${Buffer.from(`toolgate:${t}`).toString('base64')}\r\n`
  const connect = (target: string, t: string | null) => ask(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${t === null ? '' : auth(t)}\r\n`)

  it('without credentials, or with a made-up token: 407', async () => {
    expect(await connect('api.example:443', null)).toMatch(/^HTTP\/1\.1 407 /)
    expect(await connect('api.example:443', 'guessed-token')).toMatch(/^HTTP\/1\.1 407 /)
  })

  it('a host off the list: 403, naming the list, and said in the server log', async () => {
    const r = await connect('evil.example:443', token)
    expect(r).toMatch(/^HTTP\/1\.1 403 /)
    expect(r).toContain('evil.example:443 is not in sandbox.network of server "boxed"')
    expect(warnings.some((w) => w.includes('egress to evil.example:443 refused'))).toBe(true)
    // another server's list is its own
    expect(await connect('only.other.example:443', token)).toMatch(/^HTTP\/1\.1 403 /)
    expect(await connect('api.example:443', other)).toMatch(/^HTTP\/1\.1 403 /)
  })

  it("listed, but loopback, this machine's own address or the metadata service: 403 (loopback grants are sandbox.loopback)", async () => {
    for (const target of [`127.0.0.1:${localPort}`, `localhost:${localPort}`, `${hostAddresses()[0] ?? '192.0.2.1'}:${localPort}`, '169.254.169.254:80']) {
      const r = await connect(target, token)
      expect(r, target).toMatch(/^HTTP\/1\.1 403 /)
      expect(r, target).not.toContain('LOCAL-SECRET')
    }
  })

  it('absolute-form HTTP goes through the same checks; other forms are refused', async () => {
    expect(await ask(`GET http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\n${auth(token)}\r\n`)).toMatch(/^HTTP\/1\.1 403 /)
    expect(await ask(`GET http://127.0.0.1:${localPort}/ HTTP/1.1\r\nHost: x\r\n${auth(token)}\r\n`)).toMatch(/^HTTP\/1\.1 403 /)
    expect(await ask(`GET / HTTP/1.1\r\nHost: api.example\r\n${auth(token)}\r\n`)).toMatch(/^HTTP\/1\.1 400 /)
    expect(await connect('api.example', token)).toMatch(/^HTTP\/1\.1 400 /)
  })

  it('a released launch can no longer use its token', async () => {
    const reg = proxy.register('gone', parseEgressRules(['api.example']), null)
    reg.release()
    expect(await connect('api.example:443', new URL(reg.url).password)).toMatch(/^HTTP\/1\.1 407 /)
  })
})
