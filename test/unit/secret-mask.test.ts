// SecretMask: a server's secret values are masked in what it sends back, also
// URL-encoded, JSON-escaped, in base64 at any alignment, and split across two strings of one
// answer; short values only where they stand alone, values under 3 characters never.
import { describe, expect, it } from 'vitest'
import type { ServerConfig } from '../../src/shared/config-schema'
import { launchSecrets, SecretMask, CONTENT_RULES } from '../../src/main/core/masking/secret-mask'

const TOKEN = 'ghp_R4nd0mT0k3nV4lu3xyzABCDEF123456'

function cfg(extra: Partial<ServerConfig>): ServerConfig {
  return { name: 's', protocol: 'auto', enabled: true, trust: 'manual', ...extra }
}

describe('SecretMask.text', () => {
  const mask = new SecretMask([TOKEN, 'hunter22'])

  it('masks a value wherever it appears', () => {
    expect(mask.text(`token=${TOKEN}; again:${TOKEN}!`)).toBe('token=***; again:***!')
    expect(mask.text('my password is hunter22ish')).toBe('my password is ***ish')
  })

  it('masks its URL-encoded and JSON-escaped forms', () => {
    const m = new SecretMask(['p@ss/w"rd+1'])
    expect(m.text(`https://h/?p=${encodeURIComponent('p@ss/w"rd+1')}`)).toBe('https://h/?p=***')
    expect(m.text(JSON.stringify({ v: 'p@ss/w"rd+1' }))).toBe('{"v":"***"}')
  })

  it('masks it in base64, alone or inside a longer base64 text at any byte alignment; the text stays valid base64 and decodes to stars', () => {
    const stars = '*'.repeat(TOKEN.length)
    expect(Buffer.from(mask.text(Buffer.from(TOKEN).toString('base64')), 'base64').toString()).toBe(stars)
    expect(Buffer.from(mask.text(Buffer.from(TOKEN).toString('base64url')), 'base64url').toString()).toBe(stars)
    for (const prefix of ['', 'a', 'ab', 'abc', 'Authorization: Bearer ']) {
      const text = `${prefix}${TOKEN} and more text after it`
      const out = mask.text(Buffer.from(text).toString('base64'))
      expect(out, prefix).toMatch(/^[A-Za-z0-9+/]+=*$/)
      expect(out.length).toBe(Buffer.from(text).toString('base64').length)
      const back = Buffer.from(out, 'base64').toString('latin1')
      expect(back, prefix).toContain('*'.repeat(TOKEN.length - 4))
      expect(back.startsWith(prefix)).toBe(true)
      expect(back.endsWith(' and more text after it')).toBe(true)
      for (let i = 0; i + 4 <= TOKEN.length; i++) expect(back, `${prefix}: ${TOKEN.slice(i, i + 4)}`).not.toContain(TOKEN.slice(i, i + 4))
    }
  })

  it('short values: 3–5 characters only where they stand alone, under 3 never, flag words never', () => {
    const m = new SecretMask(['4711', 'ab', 'true', 'off'])
    expect(m.text('PIN 4711 accepted; order 47110 and x4711 stay')).toBe('PIN *** accepted; order 47110 and x4711 stay')
    expect(m.text('ab cd ab')).toBe('ab cd ab')
    expect(m.text('{"ok": true, "mode": "off"}')).toBe('{"ok": true, "mode": "off"}')
    expect(CONTENT_RULES.anywhere).toBe(6)
  })

  it('a value added later (an OAuth token issued while running) is masked from then on', () => {
    const m = new SecretMask([])
    expect(m.text('Bearer at-123456789')).toBe('Bearer at-123456789')
    m.add(['at-123456789'])
    expect(m.text('Bearer at-123456789')).toBe('Bearer ***')
  })
})

describe('SecretMask.value', () => {
  const mask = new SecretMask([TOKEN])

  it('masks every string of a result, keys included, and keeps the shape', () => {
    const result = {
      content: [
        { type: 'text', text: `your token: ${TOKEN}` },
        { type: 'resource', resource: { uri: 'mem://x', text: `{"token":"${TOKEN}"}` } },
      ],
      structuredContent: { [TOKEN]: 1, nested: [[{ t: TOKEN }]], n: 5, ok: true, none: null },
      isError: false,
    }
    expect(mask.value(result)).toEqual({
      content: [
        { type: 'text', text: 'your token: ***' },
        { type: 'resource', resource: { uri: 'mem://x', text: '{"token":"***"}' } },
      ],
      structuredContent: { '***': 1, nested: [[{ t: '***' }]], n: 5, ok: true, none: null },
      isError: false,
    })
  })

  it('a token split across two text blocks (or two fields) is masked in both parts', () => {
    const cut = 15
    const result = {
      content: [
        { type: 'text', text: `first half: ${TOKEN.slice(0, cut)}` },
        { type: 'text', text: `${TOKEN.slice(cut)} was the rest` },
      ],
    }
    const out = mask.value(result)
    const joined = out.content.map((c) => c.text).join('')
    expect(joined).not.toContain(TOKEN)
    expect(out.content[0].text).toBe('first half: ***')
    expect(out.content[1].text).toBe('*** was the rest')
    // three parts too
    const three = mask.value([TOKEN.slice(0, 5), TOKEN.slice(5, 20), TOKEN.slice(20)])
    expect(three).toEqual(['***', '***', '***'])
  })

  it('a hostile nesting deeper than the walk is masked as JSON text, without exhausting the stack', () => {
    let deep: unknown = { t: TOKEN }
    for (let i = 0; i < 500; i++) deep = [deep]
    expect(JSON.stringify(mask.value(deep))).not.toContain(TOKEN)
  })

  it('an empty mask returns the very same object (no copy on the hot path)', () => {
    const r = { content: [{ type: 'text', text: 'x' }] }
    expect(new SecretMask([]).value(r)).toBe(r)
  })
})

describe('launchSecrets', () => {
  it('takes secret-looking env and header values, references resolved, URL credentials and secret arguments; not ordinary values', () => {
    const values = launchSecrets(
      cfg({
        command: 'srv',
        args: ['--pin', '4711', 'DB_PASS=hunter22', '--root', '/home/ada/projects', 'https://u:pw-9876@db.example/x?api_key=qk-55555&page=2'],
        env: { GITHUB_TOKEN: TOKEN, MEMORY_FILE_PATH: '/tmp/memory.json', LOG_LEVEL: 'debug', SMTP_PASS: 'mailpass1' },
        headers: { 'X-Tenant': 'acme', Authorization: 'Bearer hdr-token-77' },
      }),
      ['resolved-secret-value'],
    )
    for (const v of [TOKEN, 'mailpass1', 'Bearer hdr-token-77', 'hdr-token-77', '4711', 'hunter22', 'pw-9876', 'qk-55555', 'resolved-secret-value']) {
      expect(values, v).toContain(v)
    }
    for (const v of ['/tmp/memory.json', 'debug', 'acme', '/home/ada/projects']) expect(values, v).not.toContain(v)
  })

  it('a reference is a name, not a value; every value is taken for logs', () => {
    const c = cfg({ command: 'srv', env: { GITHUB_TOKEN: '${secret:GH}', LOG_LEVEL: 'debug' } })
    expect(launchSecrets(c)).toEqual([])
    expect(launchSecrets(c, [], true)).toEqual(['debug'])
  })
})
