// describeTarget: what an operator sees of an upstream — never its secrets.
import { describe, expect, it } from 'vitest'
import type { ServerConfig } from '../../src/shared/config-schema'
import { describeTarget, transportKinds } from '../../src/main/core/upstream'
import { makeRedactor, maskUrl } from '../../src/main/core/masking/target'
import { resolveReferences } from '../../src/main/core/secrets/resolve'

function cfg(extra: Partial<ServerConfig>): ServerConfig {
  return { name: 's', protocol: 'auto', enabled: true, trust: 'manual', ...extra }
}

describe('describeTarget', () => {
  it('shows the command line of a stdio server, never its env', () => {
    const text = describeTarget(cfg({ command: 'node', args: ['/x/y.js', '--flag'], env: { API_KEY: 'sk-live-1234567890abcdef' } }))
    expect(text).toBe('node /x/y.js --flag')
  })

  it('quotes arguments with spaces for readability', () => {
    expect(describeTarget(cfg({ command: 'npx', args: ['-y', 'my server', "it's", "it's here"] }))).toBe(`npx -y 'my server' it's 'it'\\''s here'`)
  })

  it('masks secret-looking argv values', () => {
    const text = describeTarget(
      cfg({
        command: 'srv',
        args: ['--api-key', 'abc', '--token=xyz', '--port', '8080', 'GITHUB_TOKEN=ghp_1', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', '--verbose'],
      }),
    )
    expect(text).toBe('srv --api-key *** --token=*** --port 8080 GITHUB_TOKEN=*** *** --verbose')
    expect(text).not.toMatch(/abc|xyz|ghp_/)
  })

  it('shows ${secret:…} references as written (they name a secret), and still masks a plain value beside one', () => {
    const text = describeTarget(
      cfg({
        command: 'srv',
        args: ['--token=${secret:GH}', '--api-key', '${secret:KEY}', 'Bearer ${secret:B}', '--token=ghp_abcdefghij0123456789${secret:X}'],
      }),
    )
    expect(text).toBe("srv --token=${secret:GH} --api-key ${secret:KEY} 'Bearer ${secret:B}' --token=***")
  })

  it('masks URL credentials and secret query values, keeps harmless ones', () => {
    expect(describeTarget(cfg({ url: 'https://user:pa55@example.com/mcp?api_key=s3cret&transport=sse' }))).toBe(
      'https://***:***@example.com/mcp?api_key=***&transport=sse',
    )
    expect(describeTarget(cfg({ url: 'https://example.com/mcp?x=abcdefghij0123456789abcdef' }))).toBe('https://example.com/mcp?x=***')
    expect(describeTarget(cfg({ url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer t' } }))).toBe('http://127.0.0.1:3001/mcp')
  })

  it('shows references in a URL as written, masks literal credentials beside them', () => {
    expect(describeTarget(cfg({ url: 'https://${secret:U}:${secret:P}@example.com/${secret:SEG}/mcp?api_key=${secret:K}&x=1' }))).toBe(
      'https://${secret:U}:${secret:P}@example.com/${secret:SEG}/mcp?api_key=${secret:K}&x=1',
    )
    expect(describeTarget(cfg({ url: 'https://me:pw@example.com/mcp?token=${env:TOKEN}&api_key=literal' }))).toBe(
      'https://***:***@example.com/mcp?token=${env:TOKEN}&api_key=***',
    )
  })

  it('masks URLs given as arguments', () => {
    expect(describeTarget(cfg({ command: 'bridge', args: ['https://me:pw@host/x?token=t'] }))).toBe('bridge https://***:***@host/x?token=***')
  })
})

describe('transportKinds', () => {
  it('resolves auto: stdio with a command, else Streamable HTTP then SSE', () => {
    expect(transportKinds(cfg({ command: 'x' }))).toEqual(['stdio'])
    expect(transportKinds(cfg({ url: 'http://h/mcp' }))).toEqual(['streamable-http', 'sse'])
    expect(transportKinds(cfg({ protocol: 'http', url: 'http://h/mcp' }))).toEqual(['streamable-http'])
    expect(transportKinds(cfg({ protocol: 'streamable-http', url: 'http://h/mcp' }))).toEqual(['streamable-http'])
    expect(transportKinds(cfg({ protocol: 'sse', url: 'http://h/sse' }))).toEqual(['sse'])
    expect(transportKinds(cfg({ protocol: 'stdio', command: 'x', url: 'http://h' }))).toEqual(['stdio'])
  })
})

describe('makeRedactor', () => {
  it('masks env values, header values, URL credentials and secret args in any text', () => {
    const redact = makeRedactor(
      cfg({
        command: 'srv',
        args: ['--token', 'argsecret1', 'https://u:pw1234@h/x?key=qsecret99'],
        env: { API_KEY: 'envsecret1', SHORT: 'abc' },
        url: 'https://name:urlpass1@example.com/mcp?token=urlquery1',
        headers: { Authorization: 'Bearer hdrtoken1' },
      }),
    )
    const text = redact('fetch https://name:urlpass1@example.com/mcp?token=urlquery1 failed; envsecret1 argsecret1 pw1234 qsecret99 hdrtoken1 urlpass1 abc')
    // every env value, however short (short ones where they stand alone)
    expect(text).toBe('fetch https://***:***@example.com/mcp?token=*** failed; *** *** *** *** *** *** ***')
    expect(redact('abcdef')).toBe('abcdef')
  })

  it('masks the values that came from references, and shows ${secret:…} / ${env:…} text as a reference', () => {
    // the entry as written (references) and the values resolution gave them
    const written = cfg({
      command: 'srv',
      args: ['--token=${secret:GH}', '${secret:PLAIN}'],
      env: { GITHUB_TOKEN: '${secret:GH}', HOME_DIR: '${env:HOME}' },
      url: 'https://${secret:USER}:${secret:PASS}@example.com/${secret:SEG}/mcp?key=${secret:Q}',
      headers: { Authorization: 'Bearer ${secret:BEARER}' },
    })
    const secretValues = ['gh-value-1', 'plain-value-2', 'bearer-value-3', 'q-value-4']
    const redact = makeRedactor(written, secretValues)
    const text = redact('failed: ${secret:GH} ${env:HOME} ${secret:BEARER} https://${secret:USER}:${secret:PASS}@example.com/x ' + secretValues.join(' '))
    expect(text).toBe('failed: ${secret:GH} ${env:HOME} ${secret:BEARER} https://${secret:USER}:${secret:PASS}@example.com/x *** *** *** ***')
  })

  it('masks a value read through ${env:…} when its name or its look says secret, also in args and the URL', () => {
    const resolved = resolveReferences(cfg({ command: 'srv', args: ['${env:TG_TEST_API_TOKEN}', '--dir', '${env:TG_TEST_DIR}'], url: undefined }), {
      secret: () => undefined,
      env: { TG_TEST_API_TOKEN: 'abc', TG_TEST_DIR: '/srv/data' },
    })
    if (!resolved.ok) throw new Error(resolved.error)
    const redact = makeRedactor(resolved.config, resolved.secretValues)
    expect(redact('spawn srv abc --dir /srv/data failed')).toBe('spawn srv *** --dir /srv/data failed')
  })
})

describe('masking token-like URL path segments', () => {
  it('masks webhook-style segments and well-known key prefixes, keeps ordinary paths', () => {
    expect(maskUrl('https://hooks.example.com/services/T0ABCDEF1/B0ABCDEF2/x7Yq2LmN8pR4tV6wZ1aB3cD5')).toBe(
      'https://hooks.example.com/services/T0ABCDEF1/B0ABCDEF2/***',
    )
    expect(maskUrl('https://mcp.example.com/sk-ak-9f8e7d6c/sse')).toBe('https://mcp.example.com/***/sse')
    expect(maskUrl('https://mcp.example.com/v1/servers/github/mcp')).toBe('https://mcp.example.com/v1/servers/github/mcp')
  })
})
