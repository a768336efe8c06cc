// The paste box of the Add server form: what people copy from READMEs becomes server entries.
// Expected entries are written out by hand from each snippet.
import { describe, expect, it } from 'vitest'
import { nameFrom, parseClientSnippet, shellWords } from '../../src/shared/client-snippet'
import { looksSecret, secretNameFor } from '../../src/shared/secret-refs'

describe('shellWords', () => {
  it('splits like a shell: quotes, escapes, continuations', () => {
    expect(shellWords(`npx -y "@a/b c" 'd e' f\\ g \\\n --x="1 2"`)).toEqual(['npx', '-y', '@a/b c', 'd e', 'f g', '--x=1 2'])
    expect(shellWords(`a "q\\"uote" ''`)).toEqual(['a', 'q"uote', ''])
    expect(() => shellWords(`a "open`)).toThrow(/not closed/)
  })
})

describe('parseClientSnippet', () => {
  it('reads a Claude Desktop mcpServers JSON with several servers', () => {
    const r = parseClientSnippet(`{
      "mcpServers": {
        "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x" } },
        "remote": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer abc" } }
      }
    }`)
    expect(r).toEqual({
      servers: [
        { name: 'github', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' } },
        { name: 'remote', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } },
      ],
    })
  })

  it('reads the inside of mcpServers, a single entry, VS Code "servers" with type', () => {
    expect(parseClientSnippet(`"memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }`)).toEqual({
      servers: [{ name: 'memory', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }],
    })
    expect(parseClientSnippet(`{ "command": "uvx", "args": ["mcp-server-fetch"] }`)).toEqual({
      servers: [{ name: 'fetch', command: 'uvx', args: ['mcp-server-fetch'] }],
    })
    expect(parseClientSnippet(`{ "servers": { "docs": { "type": "sse", "url": "https://d.example/sse" } } }`)).toEqual({
      servers: [{ name: 'docs', url: 'https://d.example/sse', protocol: 'sse' }],
    })
  })

  it('reads claude mcp add lines (stdio with -e and --, http with -t and -H) and add-json', () => {
    expect(parseClientSnippet(`claude mcp add airtable -s user -e AIRTABLE_API_KEY=key123 -- npx -y airtable-mcp-server --verbose`)).toEqual({
      servers: [{ name: 'airtable', command: 'npx', args: ['-y', 'airtable-mcp-server', '--verbose'], env: { AIRTABLE_API_KEY: 'key123' } }],
    })
    expect(parseClientSnippet(`claude mcp add --transport http sentry https://mcp.sentry.dev/mcp -H "Authorization: Bearer tok"`)).toEqual({
      servers: [{ name: 'sentry', url: 'https://mcp.sentry.dev/mcp', headers: { Authorization: 'Bearer tok' } }],
    })
    expect(parseClientSnippet(`claude mcp add --transport sse linear https://mcp.linear.app/sse`)).toEqual({
      servers: [{ name: 'linear', url: 'https://mcp.linear.app/sse', protocol: 'sse' }],
    })
    expect(parseClientSnippet(`claude mcp add-json weather '{"command":"node","args":["/opt/weather.js"]}'`)).toEqual({
      servers: [{ name: 'weather', command: 'node', args: ['/opt/weather.js'] }],
    })
  })

  it('reads a plain npx line, with env assignments in front', () => {
    expect(parseClientSnippet(`GITHUB_TOKEN=abc npx -y @modelcontextprotocol/server-github@2025.1.0`)).toEqual({
      servers: [{ name: 'github', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github@2025.1.0'], env: { GITHUB_TOKEN: 'abc' } }],
    })
    expect(parseClientSnippet(`$ node /srv/mcp/weather-mcp.mjs --port 0`)).toEqual({
      servers: [{ name: 'weather', command: 'node', args: ['/srv/mcp/weather-mcp.mjs', '--port', '0'] }],
    })
  })

  it('says what is wrong instead of guessing', () => {
    expect(parseClientSnippet('')).toMatchObject({ error: expect.stringContaining('paste a client snippet') })
    expect(parseClientSnippet('{ "mcpServers": { "x": { } } }')).toMatchObject({ error: expect.stringContaining('needs "command"') })
    expect(parseClientSnippet('{ nope')).toMatchObject({ error: expect.stringContaining('not valid') })
    expect(parseClientSnippet('claude mcp add onlyname')).toMatchObject({ error: expect.stringContaining('needs a name and a command') })
  })

  it('makes valid names', () => {
    expect(nameFrom('@scope/mcp-server-foo@1.2.3')).toBe('foo')
    expect(nameFrom('my weird:name')).toBe('my-weird-name')
    expect(nameFrom('???')).toBe('server')
  })
})

describe('looksSecret / secretNameFor', () => {
  it('by name or by look, never a reference', () => {
    expect(looksSecret('GITHUB_TOKEN', 'x')).toBe(true)
    expect(looksSecret('Authorization', 'Bearer abc')).toBe(true)
    expect(looksSecret('REGION', 'eu-west-1')).toBe(false)
    expect(looksSecret('SOMETHING', 'a1b2c3d4e5f6a7b8c9d0e1f2a3')).toBe(true)
    expect(looksSecret('GITHUB_TOKEN', '${secret:GITHUB_TOKEN}')).toBe(false)
    expect(looksSecret('PATH_TO', '/home/user/some/long/path/2024')).toBe(false)
    expect(secretNameFor('github', 'GITHUB_TOKEN', true)).toBe('GITHUB_TOKEN')
    expect(secretNameFor('remote', 'Authorization', false)).toBe('REMOTE_AUTHORIZATION')
    expect(secretNameFor('x', 'X-Api-Key', false)).toBe('X_X-API-KEY')
  })
})
