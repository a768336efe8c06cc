// Resource URIs as agents see them: they name their server, keep their scheme,
// read back to exactly the server's URI, keep templates templates (expanding the agent's template
// reads back to the expansion of the server's), and nothing but the host can name a server:
// encoding tricks, "..", another server's prefix, user info, ports and scheme confusion either
// read back to the same server or to nothing.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { fromAgentUri, RESOURCE_HOST_SUFFIX, toAgentTemplate, toAgentUri } from '../../src/shared/resource-uri'

const server = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/).filter((s) => s !== '.' && s !== '..')
const scheme = fc.stringMatching(/^[a-z][a-z0-9+.-]{0,8}$/)
/** anything a URI may hold after its scheme (and more: servers send odd URIs) */
const rest = fc.string({ maxLength: 60 }).filter((s) => !/[\r\n]/.test(s))

describe('agent URIs', () => {
  it('read back to exactly the server and its URI, for any scheme and any rest', () => {
    fc.assert(
      fc.property(server, scheme, rest, (srv, sch, r) => {
        const original = `${sch}:${r}`
        const agent = toAgentUri(srv, original)
        expect(agent).not.toBeNull()
        expect(agent?.startsWith(`${sch}://${srv}${RESOURCE_HOST_SUFFIX}/`)).toBe(true)
        expect(fromAgentUri(agent as string)).toEqual({ server: srv, uri: original })
      }),
    )
  })

  it('keep the scheme and read as URIs (examples)', () => {
    expect(toAgentUri('notes', 'file:///notes/a.txt')).toBe('file://notes.toolgate.invalid/~/notes/a.txt')
    expect(toAgentUri('apps', 'ui://widget/app.html?x=1')).toBe('ui://apps.toolgate.invalid/~widget/app.html?x=1')
    expect(toAgentUri('web', 'https://example.com/a#b')).toBe('https://web.toolgate.invalid/~example.com/a#b')
    expect(toAgentUri('books', 'urn:isbn:0451450523')).toBe('urn://books.toolgate.invalid/!isbn:0451450523')
    // a WHATWG parser reads them with the server as the host
    for (const u of [
      'file://notes.toolgate.invalid/~/notes/a.txt',
      'https://web.toolgate.invalid/~example.com/a#b',
      'ui://apps.toolgate.invalid/~widget/app.html?x=1',
    ])
      expect(new URL(u).href).toBe(u)
    expect(toAgentUri('x', 'no-scheme/relative')).toBeNull()
  })

  it('keep templates templates: the expansion of the agent’s template reads back to the expansion of the server’s', () => {
    const expand = (t: string, vars: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? '')
    fc.assert(
      fc.property(
        server,
        fc.constantFrom('file:///notes/{id}.md', 'demo://resource/{id}', 'http://{host}/x/{id}', 'urn:item:{id}'),
        fc.stringMatching(/^[a-z0-9]{1,8}$/),
        (srv, t, v) => {
          const agentTemplate = toAgentTemplate(srv, t) as string
          const vars = { id: v, host: `${v}.example` }
          expect(fromAgentUri(expand(agentTemplate, vars))).toEqual({ server: srv, uri: expand(t, vars) })
        },
      ),
    )
  })
})

describe('attack: an agent URI crafted to reach another server', () => {
  const mine = toAgentUri('pt', 'file:///notes/a.txt') as string
  it.each([
    ['another server’s suffix as user info', 'file://other.toolgate.invalid@pt.toolgate.invalid/~/etc/passwd'],
    ['a port', 'file://other.toolgate.invalid:443/~/x'],
    ['a percent-encoded host', 'file://%6Fther.toolgate.invalid/~/x'],
    ['no marker', 'file://other.toolgate.invalid/etc/passwd'],
    ['no path', 'file://other.toolgate.invalid'],
    ['backslashes', 'file:\\\\other.toolgate.invalid\\~\\x'],
    ['no authority', 'file:/other.toolgate.invalid/~/x'],
    ['the server’s original URI', 'file:///notes/a.txt'],
    ['a host that only ends like ours', 'file://other.toolgate.invalid.evil.example/~/x'],
    ['an empty server', 'file://.toolgate.invalid/~/x'],
  ])('%s reads back to nothing', (_what, uri) => {
    expect(fromAgentUri(uri)).toBeNull()
  })

  it('dot segments, encodings and another server’s name in the path stay with the server the host names', () => {
    for (const tail of ['/../../other.toolgate.invalid/~/x', '/%2e%2e/%2e%2e/other', '/~other.toolgate.invalid/~/x', '?u=file://other.toolgate.invalid/~/x'])
      expect(fromAgentUri(`${mine}${tail}`)?.server).toBe('pt')
    // the scheme never names a server: the host does
    expect(fromAgentUri('other://pt.toolgate.invalid/~x')).toEqual({ server: 'pt', uri: 'other://x' })
  })
})
