// The `oauth` key of an HTTP server entry (docs/remote-servers.md): a client secret is never
// written in the config (only a ${secret:NAME} reference), it is resolved like other references
// when the server starts and joins the values every message is masked with.
import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../src/main/core/config/load'
import { resolveReferences } from '../../src/main/core/secrets/resolve'
import { secretsUsedBy } from '../../src/shared/secret-refs'

const FILE = '/etc/toolgate/mcp_config.json'
const entry = (oauth: unknown, extra: Record<string, unknown> = {}) => ({ mcpServers: { linear: { url: 'https://mcp.example.com/mcp', oauth, ...extra } } })

function problem(raw: unknown): ConfigError {
  try {
    parseConfig(FILE, raw)
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return e as ConfigError
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`)
}

describe('oauth in a server entry', () => {
  it('refuses a client secret written in the config, naming the path and the way out', () => {
    const err = problem(entry({ client_id: 'abc', client_secret: 'literal-secret-value' }))
    expect(err.jsonPath).toBe('$.mcpServers.linear.oauth.client_secret')
    expect(err.problem).toMatch(/never written in the config.*toolgate secrets set NAME.*\$\{secret:NAME\}/)
    expect(err.message).not.toContain('literal-secret-value')
  })

  it('refuses oauth on a stdio server, a secret without a client id, and oauth next to an Authorization header', () => {
    expect(problem({ mcpServers: { s: { command: 'node', oauth: { client_id: 'a' } } } }).problem).toMatch(/only to HTTP servers/)
    expect(problem(entry({ client_secret: '${secret:X}' })).problem).toMatch(/client_secret needs client_id/)
    expect(problem(entry({ client_id: 'a' }, { headers: { Authorization: 'Bearer x' } })).problem).toMatch(/either an Authorization header or oauth/)
  })

  it('resolves a referenced client secret when the server starts, and masks it', () => {
    const cfg = parseConfig(FILE, entry({ client_id: 'abc', client_secret: '${secret:LINEAR_CLIENT_SECRET}', scopes: ['read'] }))
    const server = cfg.servers[0]
    expect(secretsUsedBy(server)).toEqual(['LINEAR_CLIENT_SECRET'])
    const r = resolveReferences(server, { secret: (n) => (n === 'LINEAR_CLIENT_SECRET' ? 's3cr3t-from-store' : undefined), env: {} })
    expect(r).toMatchObject({ ok: true, secretValues: ['s3cr3t-from-store'] })
    expect(r.ok && r.config.oauth).toEqual({ client_id: 'abc', client_secret: 's3cr3t-from-store', scopes: ['read'] })
    expect(server.oauth?.client_secret).toBe('${secret:LINEAR_CLIENT_SECRET}') // the config keeps the reference
    expect(resolveReferences(server, { secret: () => undefined, env: {} })).toEqual({
      ok: false,
      error: 'secret LINEAR_CLIENT_SECRET is not set: toolgate secrets set LINEAR_CLIENT_SECRET',
    })
  })

  it('takes the client_credentials grant only with a client id and a referenced secret', () => {
    const cfg = parseConfig(FILE, entry({ grant_type: 'client_credentials', client_id: 'svc', client_secret: '${secret:SVC}', scopes: ['read'] }))
    expect(cfg.servers[0].oauth).toEqual({ grant_type: 'client_credentials', client_id: 'svc', client_secret: '${secret:SVC}', scopes: ['read'] })
    expect(problem(entry({ grant_type: 'client_credentials', client_id: 'svc' })).problem).toMatch(/needs client_id and client_secret/)
    expect(problem(entry({ grant_type: 'client_credentials', client_secret: '${secret:SVC}' })).problem).toMatch(/client_secret needs client_id/)
    expect(problem(entry({ grant_type: 'password' })).problem).toMatch(/grant_type must be "authorization_code" or "client_credentials"/)
  })

  it('takes a client ID metadata document URL only over https, by path, on a public host (the authorization server fetches it)', () => {
    const url = 'https://toolgate.example.org/oauth/client.json'
    expect(parseConfig(FILE, entry({ client_metadata_url: url })).servers[0].oauth).toEqual({ client_metadata_url: url })
    const refused: Array<[string, RegExp]> = [
      ['http://toolgate.example.org/client.json', /must be an https URL/],
      ['https://toolgate.example.org/', /by its path/],
      ['https://user:pw@toolgate.example.org/c.json', /without credentials/],
      ['https://127.0.0.1/client.json', /public host, not 127\.0\.0\.1/],
      ['https://localhost:8719/oauth/client.json', /public host, not localhost/],
      ['https://[::1]/client.json', /public host/],
      ['https://0x7f000001/client.json', /public host, not 127\.0\.0\.1/],
      ['https://192.168.1.10/client.json', /public host/],
      ['https://10.0.0.8/client.json', /public host/],
      ['https://metadata.localhost/client.json', /public host/],
      ['not a url', /must be a URL/],
    ]
    for (const [value, why] of refused) {
      const err = problem(entry({ client_metadata_url: value }))
      expect(err.jsonPath, value).toBe('$.mcpServers.linear.oauth.client_metadata_url')
      expect(err.problem, value).toMatch(why)
    }
    expect(problem(entry({ client_metadata_url: url, client_id: 'abc' })).problem).toMatch(/either client_id .* or client_metadata_url/)
  })
})
