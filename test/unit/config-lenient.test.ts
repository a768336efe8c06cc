// Config mistakes with "did you mean": a lenient load (`toolgate stdio`) leaves out only
// the server entries with a mistake and says where; "command" with "url" is a mistake; an agent
// scoped to a server that does not exist and a top-level key close to a known one are notes that
// name the near name. A strict load still refuses what the lenient one leaves out.
import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig, parseConfigLenient } from '../../src/main/core/config/load'

const FILE = '/tmp/mcp_config.json'
const stdio = (extra: Record<string, unknown> = {}) => ({ command: 'node', args: ['server.js'], ...extra })

describe('parseConfigLenient', () => {
  it('leaves out each entry with a mistake (object style), keeps the rest, and names path and problem', () => {
    const raw = {
      mcpServers: {
        good: stdio(),
        typo: stdio({ disable_tools: ['x'] }),
        'my-both': { command: 'node', url: 'https://example.com/mcp' },
        off: stdio({ enabled: false, tools_limit_typo: 1, quarantined: 'no' }),
      },
    }
    expect(() => parseConfig(FILE, raw)).toThrow(ConfigError)
    const c = parseConfigLenient(FILE, raw)
    expect(c.servers.map((s) => s.name)).toEqual(['good'])
    const by = Object.fromEntries(c.skipped.map((s) => [s.name, s]))
    expect(Object.keys(by).sort()).toEqual(['my-both', 'off', 'typo'])
    expect(by.typo.path).toBe('$.mcpServers.typo.disable_tools')
    expect(by.typo.problem).toContain('did you mean "disabled_tools"')
    expect(by['my-both'].path).toBe('$.mcpServers["my-both"].url')
    expect(by['my-both'].problem).toMatch(/"command" and "url" in one entry/)
    expect(by.off.enabled).toBe(false)
    expect(by.off.protocol).toBe('stdio')
  })

  it('array style: the path names the entry as written, also after an earlier entry was left out', () => {
    const raw = {
      mcpServers: [
        { name: 'a', ...stdio({ quarantine: false }) },
        { name: 'b', ...stdio() },
        { name: 'c', url: 'https://example.com/mcp', disabled_tool: ['x'] },
      ],
    }
    const c = parseConfigLenient(FILE, raw)
    expect(c.servers.map((s) => s.name)).toEqual(['b'])
    expect(c.skipped.map((s) => [s.name, s.path, s.protocol])).toEqual([
      ['a', '$.mcpServers[0].quarantine', 'stdio'],
      ['c', '$.mcpServers[2].disabled_tool', 'http'],
    ])
  })

  it('mistakes outside a server entry still throw (a top-level value, an agent)', () => {
    expect(() => parseConfigLenient(FILE, { tools_limit: 0, mcpServers: { good: stdio() } })).toThrow(/tools_limit/)
    expect(() => parseConfigLenient(FILE, { agents: [{ name: 'x', permissions: ['all'] }], mcpServers: {} })).toThrow(/\$\.agents\[0\]/)
  })
})

describe('notes with "did you mean"', () => {
  it('an agent scoped to a server that does not exist, with and without a near name; the entries left out count as existing', () => {
    const raw = {
      agents: [{ name: 'helper', servers: ['memroy', 'github', 'typo', 'good'] }],
      mcpServers: { good: stdio(), memory: stdio(), typo: stdio({ disable_tools: [] }) },
    }
    const c = parseConfigLenient(FILE, raw)
    expect(c.notes).toEqual([
      '$.agents[0].servers[0]: no server named "memroy" in mcpServers, so agent "helper" reaches nothing there; did you mean "memory"?',
      '$.agents[0].servers[1]: no server named "github" in mcpServers, so agent "helper" reaches nothing there',
    ])
  })

  it('a top-level key close to a known one is a note naming it (not a bare warning); a far one stays a warning', () => {
    const c = parseConfig(FILE, { tool_limit: 5, quarantine_enable: false, colour: 'blue', mcpServers: {} })
    expect(c.notes).toEqual([
      '$.tool_limit: unknown key "tool_limit" is ignored; did you mean "tools_limit"?',
      '$.quarantine_enable: unknown key "quarantine_enable" is ignored; did you mean "quarantine_enabled"?',
    ])
    expect(c.warnings).toEqual(['$.colour'])
    // ignored means ignored: the defaults hold (quarantine stays on)
    expect(c.tools_limit).toBe(15)
    expect(c.quarantine_enabled).toBe(true)
  })
})
