// ${secret:NAME} / ${env:NAME}: the syntax the config accepts (same loader, same messages), and
// resolution at start: values substituted in env, headers, args and url only, missing ones named.
import { describe, expect, it } from 'vitest'
import { findReferences, referenceProblem, secretsUsedBy, substitute } from '../../src/shared/secret-refs'
import { parseConfig } from '../../src/main/core/config/load'
import { resolveReferences } from '../../src/main/core/secrets/resolve'
import type { ServerConfig } from '../../src/shared/config-schema'

const server = (over: Partial<ServerConfig>): ServerConfig =>
  ({ name: 's', protocol: 'auto', enabled: true, trust: 'manual', command: 'node', ...over }) as ServerConfig

describe('reference syntax', () => {
  it('finds secret and env references in order', () => {
    expect(findReferences('Bearer ${secret:GH_TOKEN} for ${env:USER} and ${secret:GH_TOKEN}')).toEqual([
      { kind: 'secret', name: 'GH_TOKEN' },
      { kind: 'env', name: 'USER' },
      { kind: 'secret', name: 'GH_TOKEN' },
    ])
    expect(findReferences('${other:X} $HOME ${HOME}')).toEqual([])
  })

  it('calls a started but broken reference malformed', () => {
    for (const bad of ['${secret:}', '${secret:A B}', '${env:X', 'x ${secret:1A}']) expect(referenceProblem(bad)).toMatch(/malformed reference/)
    expect(referenceProblem('${secret:OK} and ${env:ALSO_OK}')).toBeNull()
  })

  it('the config loader refuses a malformed reference with its JSON path', () => {
    const raw = { mcpServers: { gh: { command: 'npx', env: { GITHUB_TOKEN: '${secret:GH TOKEN}' } } } }
    expect(() => parseConfig('/c.json', raw)).toThrow(/at \$\.mcpServers\.gh\.env\.GITHUB_TOKEN: malformed reference/)
  })

  it('a URL may hold references, even as its host; a URL that is invalid anyway is still refused', () => {
    const ok = parseConfig('/c.json', {
      mcpServers: { a: { url: 'https://${env:MCP_HOST}/mcp?key=${secret:K}' }, b: { url: 'https://x.example/${secret:P}/mcp' } },
    })
    expect(ok.servers.map((s) => s.url)).toEqual(['https://${env:MCP_HOST}/mcp?key=${secret:K}', 'https://x.example/${secret:P}/mcp'])
    expect(() => parseConfig('/c.json', { mcpServers: { a: { url: 'not a url ${secret:K}' } } })).toThrow(/\$\.mcpServers\.a\.url: Invalid URL/)
  })

  it('lists the secrets a server uses', () => {
    expect(secretsUsedBy({ env: { A: '${secret:B}' }, headers: { H: 'x ${secret:A}' }, args: ['${env:HOME}', '--k=${secret:C}'], url: undefined })).toEqual([
      'A',
      'B',
      'C',
    ])
    expect(substitute('a${secret:X}b', () => '!')).toBe('a!b')
  })
})

describe('resolveReferences', () => {
  const source = { secret: (n: string) => ({ TOKEN: 'tok-123456', PASS: 'p@ss w0rd' })[n], env: { MCP_HOST: 'mcp.example', HOME: '/home/u' } }

  it('substitutes env, headers, args and url, and leaves command and cwd alone', () => {
    const cfg = server({
      command: '${secret:TOKEN}',
      cwd: '/x/${env:HOME}',
      env: { GITHUB_TOKEN: '${secret:TOKEN}', PLAIN: 'plain' },
      args: ['--token=${secret:TOKEN}', '${env:HOME}/data'],
      headers: { Authorization: 'Basic ${secret:PASS}' },
      url: 'https://${env:MCP_HOST}/mcp',
    })
    const r = resolveReferences(cfg, source)
    if (!r.ok) throw new Error(r.error)
    expect(r.config.env).toEqual({ GITHUB_TOKEN: 'tok-123456', PLAIN: 'plain' })
    expect(r.config.args).toEqual(['--token=tok-123456', '/home/u/data'])
    expect(r.config.headers).toEqual({ Authorization: 'Basic p@ss w0rd' })
    expect(r.config.url).toBe('https://mcp.example/mcp')
    expect(r.config.command).toBe('${secret:TOKEN}')
    expect(r.config.cwd).toBe('/x/${env:HOME}')
    expect(r.secretValues.sort()).toEqual(['p@ss w0rd', 'tok-123456'])
    // the entry itself is never changed (it is the one in the catalog, identity and UI)
    expect(cfg.env?.GITHUB_TOKEN).toBe('${secret:TOKEN}')
  })

  it('names a missing secret and how to set it', () => {
    const r = resolveReferences(server({ env: { GITHUB_TOKEN: '${secret:GITHUB_TOKEN}' } }), source)
    expect(r).toEqual({ ok: false, error: 'secret GITHUB_TOKEN is not set: toolgate secrets set GITHUB_TOKEN' })
  })

  it('names a missing environment variable', () => {
    const r = resolveReferences(server({ args: ['${env:NOPE_NOT_SET}'] }), source)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContain('environment variable NOPE_NOT_SET is not set')
  })

  it('a store that cannot be opened is an error for this server, not a throw', () => {
    const broken = {
      secret: () => {
        throw new Error('the secret store (/d/secrets.json) cannot be opened: it is sealed by the Toolgate app')
      },
      env: {},
    }
    const r = resolveReferences(server({ env: { A: '${secret:A}' } }), broken)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatch(/cannot read the secrets of server "s": the secret store .* cannot be opened/)
  })

  it('returns the entry untouched when it has no references', () => {
    const cfg = server({ env: { A: 'b' } })
    const r = resolveReferences(cfg, undefined)
    expect(r.ok && r.config).toBe(cfg)
  })
})
