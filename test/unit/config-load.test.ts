// docs/contract.md §2: mcp_config.json loads in both styles, gets the documented defaults, and every
// error names the file, the JSON path and the problem.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfigFile, parseConfig } from '../../src/main/core/config/load'
import { tmpDir } from '../helpers/catalog-fixture'

const FILE = '/etc/toolgate/mcp_config.json'

function errorOf(raw: unknown, file = FILE): ConfigError {
  try {
    parseConfig(file, raw)
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return e as ConfigError
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`)
}

/** The error names the file, the JSON path and the problem, all in its message. */
function expectClearError(raw: unknown, jsonPath: string, problem: RegExp, file = FILE): ConfigError {
  const err = errorOf(raw, file)
  expect(err.file).toBe(file)
  expect(err.jsonPath).toBe(jsonPath)
  expect(err.problem).toMatch(problem)
  expect(err.message).toContain(file)
  expect(err.message).toContain(jsonPath)
  expect(err.message).toMatch(problem)
  return err
}

describe('As an operator I can list servers in either mcpServers style', () => {
  it('the mcpproxy style (array of entries with name) loads', () => {
    const c = parseConfig(FILE, {
      mcpServers: [
        { name: 'github', command: 'npx', args: ['-y', 'gh-mcp'] },
        { name: 'remote', url: 'https://example.com/mcp' },
      ],
    })
    expect(c.style).toBe('array')
    expect(c.servers.map((s) => s.name)).toEqual(['github', 'remote'])
    expect(c.servers[0]).toMatchObject({ command: 'npx', args: ['-y', 'gh-mcp'] })
    expect(c.servers[1]).toMatchObject({ url: 'https://example.com/mcp' })
  })

  it('the Claude Desktop style (object keyed by name) loads and takes the name from the key', () => {
    const c = parseConfig(FILE, {
      mcpServers: { github: { command: 'npx', args: ['gh-mcp'] }, 'my.files_1-x': { command: 'node', args: ['f.js'] } },
    })
    expect(c.style).toBe('object')
    expect(c.servers.map((s) => s.name)).toEqual(['github', 'my.files_1-x'])
  })

  it('both styles give the same server entries', () => {
    const a = parseConfig(FILE, { mcpServers: [{ name: 'x', command: 'node', args: ['a'], disabled_tools: ['t'] }] })
    const o = parseConfig(FILE, { mcpServers: { x: { command: 'node', args: ['a'], disabled_tools: ['t'] } } })
    expect(a.servers).toEqual(o.servers)
  })

  it('a file without mcpServers is valid and has no servers', () => {
    expect(parseConfig(FILE, {}).servers).toEqual([])
  })
})

describe('As an operator I get the documented defaults', () => {
  it('top level: tools_limit 15, call_timeout_ms 60000, quarantine_enabled true, allow_agent_server_changes false, no agents', () => {
    const c = parseConfig(FILE, { mcpServers: {} })
    expect(c.tools_limit).toBe(15)
    expect(c.call_timeout_ms).toBe(60000)
    expect(c.quarantine_enabled).toBe(true)
    expect(c.allow_agent_server_changes).toBe(false)
    expect(c.agents).toEqual([])
    expect(c.api_key).toBeUndefined()
  })

  it('server: protocol auto, enabled, trust manual, quarantined absent (the user decides), no lock lists', () => {
    const [s] = parseConfig(FILE, { mcpServers: { a: { command: 'node' } } }).servers
    expect(s.protocol).toBe('auto')
    expect(s.enabled).toBe(true)
    expect(s.trust).toBe('manual')
    expect('quarantined' in s && s.quarantined !== undefined).toBe(false)
    expect(s.enabled_tools).toBeUndefined()
    expect(s.disabled_tools).toBeUndefined()
  })

  it('agent: all servers and all permissions, questions only in the window', () => {
    const c = parseConfig(FILE, { agents: [{ name: 'bot' }] })
    expect(c.agents[0]).toEqual({ name: 'bot', servers: '*', permissions: ['read', 'write', 'destructive'] })
    expect(c.agents[0].ask_in_client).toBeUndefined() // the user's switch decides (off until they turn it on)
    expect(() => parseConfig(FILE, { agents: [{ name: 'bot', ask_in_client: 'yes' }] })).toThrow(/ask_in_client/)
  })

  it('explicit values are kept (tools_limit bounds 1 and 100 are valid)', () => {
    expect(parseConfig(FILE, { tools_limit: 1 }).tools_limit).toBe(1)
    expect(parseConfig(FILE, { tools_limit: 100, quarantine_enabled: false }).tools_limit).toBe(100)
  })
})

describe('As an operator every config error tells me the file, the JSON path and the problem', () => {
  it('duplicate server name in the array style', () => {
    expectClearError(
      {
        mcpServers: [
          { name: 'a', command: 'x' },
          { name: 'a', command: 'y' },
        ],
      },
      '$.mcpServers[1].name',
      /duplicate server name "a"/,
    )
  })

  it('object style: a name that differs from its key', () => {
    expectClearError({ mcpServers: { a: { name: 'b', command: 'x' } } }, '$.mcpServers.a.name', /differs from its key/)
  })

  it('both enabled_tools and disabled_tools set (array style)', () => {
    expectClearError(
      { mcpServers: [{ name: 'a', command: 'x', enabled_tools: ['q'], disabled_tools: ['r'] }] },
      '$.mcpServers[0].disabled_tools',
      /either enabled_tools or disabled_tools, not both/,
    )
  })

  it('both enabled_tools and disabled_tools set (object style)', () => {
    expectClearError(
      { mcpServers: { a: { command: 'x', enabled_tools: ['q'], disabled_tools: ['r'] } } },
      '$.mcpServers.a.disabled_tools',
      /either enabled_tools or disabled_tools, not both/,
    )
  })

  it('a stdio server without command', () => {
    expectClearError({ mcpServers: { a: { args: ['x'] } } }, '$.mcpServers.a.command', /stdio server needs "command"/)
    expectClearError({ mcpServers: [{ name: 'a', protocol: 'stdio', url: 'https://x.example/mcp' }] }, '$.mcpServers[0].command', /needs "command"/)
  })

  it('an HTTP protocol without url', () => {
    expectClearError({ mcpServers: { a: { protocol: 'sse', command: 'x' } } }, '$.mcpServers.a.url', /protocol "sse" needs "url"/)
  })

  it('a server name with ":" (array style)', () => {
    expectClearError({ mcpServers: [{ name: 'git:hub', command: 'x' }] }, '$.mcpServers[0].name', /no ":"/)
  })

  it('a server name with ":" (object style, as the key)', () => {
    expectClearError({ mcpServers: { 'git:hub': { command: 'x' } } }, '$.mcpServers["git:hub"]', /"git:hub".*no ":"/)
  })

  it('a server name with a space, or empty', () => {
    expectClearError({ mcpServers: [{ name: 'my server', command: 'x' }] }, '$.mcpServers[0].name', /only letters, digits/)
    expectClearError({ mcpServers: [{ name: '', command: 'x' }] }, '$.mcpServers[0].name', /must not be empty|only letters/)
  })

  it.each([
    [0, />=\s*1|too small/i],
    [101, /<=\s*100|too big/i],
    [1.5, /int/i],
    ['5', /number/i],
  ])('tools_limit %j is rejected', (value, problem) => {
    expectClearError({ mcpServers: {}, tools_limit: value }, '$.tools_limit', problem)
  })

  it('call_timeout_ms 0 is rejected', () => {
    expectClearError({ call_timeout_ms: 0 }, '$.call_timeout_ms', /./)
  })

  it('duplicate agent names (which scope would apply?)', () => {
    expectClearError(
      {
        agents: [
          { name: 'bot', servers: ['gh'], permissions: ['read'] },
          { name: 'bot', servers: '*' },
        ],
      },
      '$.agents[1].name',
      /duplicate agent name "bot"/,
    )
  })

  it('an agent name with ":"', () => {
    expectClearError({ agents: [{ name: 'a:b' }] }, '$.agents[0].name', /no ":"/)
  })

  it('a wrongly typed server field is named (object style: enabled as a string)', () => {
    // A type error inside a server entry must point at the field, not at "$.mcpServers: Invalid input".
    expectClearError({ mcpServers: { a: { command: 'x', enabled: 'no' } } }, '$.mcpServers.a.enabled', /boolean/i)
  })

  it('a wrongly typed server field is named (array style: args as a string)', () => {
    expectClearError({ mcpServers: [{ name: 'a', command: 'x', args: '--flag' }] }, '$.mcpServers[0].args', /array/i)
  })

  it('mcpServers of the wrong type says an array or an object is expected', () => {
    const err = errorOf({ mcpServers: 5 })
    expect(err.jsonPath).toBe('$.mcpServers')
    expect(err.problem).toMatch(/array|object/i)
  })

  it('a top level that is not an object', () => {
    expectClearError([], '$', /object/i)
  })

  it('a file that is not JSON: the file and the problem (with its position) are named', () => {
    const dir = tmpDir()
    const file = path.join(dir, 'mcp_config.json')
    fs.writeFileSync(file, '{ "mcpServers": { "a": { "command": "x", } }')
    let err: unknown
    try {
      loadConfigFile(file)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const ce = err as ConfigError
    expect(ce.file).toBe(file)
    expect(ce.message).toContain(file)
    expect(ce.problem).toMatch(/not valid JSON/)
    expect(ce.problem).toMatch(/position|line|column/i)
  })

  it('an error in a file on disk names that file', () => {
    const dir = tmpDir()
    const file = path.join(dir, 'mcp_config.json')
    fs.writeFileSync(
      file,
      JSON.stringify({
        mcpServers: [
          { name: 'a', command: 'x' },
          { name: 'a', command: 'y' },
        ],
      }),
    )
    expect(() => loadConfigFile(file)).toThrow(`${file}: at $.mcpServers[1].name: duplicate server name "a"`)
  })

  it('a missing file is created with no servers', () => {
    const dir = tmpDir()
    const file = path.join(dir, 'sub', 'mcp_config.json')
    const { config } = loadConfigFile(file)
    expect(config.servers).toEqual([])
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ mcpServers: {} })
  })
})
