// Prototype-pollution names, end to end: server names that are valid by the config rules
// (letters, digits, "-", "_", ".") but collide with Object.prototype members — "__proto__",
// "constructor", "toString", "hasOwnProperty", "valueOf" — must work like any other name in the
// config, in state.json (approvals and locks survive a restart), through the control API and
// NOTE: they are refused, not supported:
// through `upstream_servers add`: the config refuses them with a clear message, and an agent's
// `upstream_servers add` refuses them truthfully without leaving stray state.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  assertBuilt,
  runCli,
  fixtureEntry,
  startServe,
  stopProcess,
  tempDir,
  waitFor,
  waitForServerState,
  waitForToolStatus,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { jsonOf, textOf } from '../helpers/mcp-client'
import { allText, mcpOn, readState } from '../helpers/faults'

useCleanup()

const TRUSTED = ['constructor', 'toString', 'hasOwnProperty']

/**
 * Array style (the default here) keeps every name a plain string value; object style (Claude
 * Desktop's, keyed by name) is what most users have, so `upstream_servers add` is tried on it.
 */
function setup(style: 'array' | 'object' = 'array'): { tmp: string; configPath: string; dataDir: string } {
  assertBuilt()
  const tmp = tempDir('toolgate-fuzz-names-')
  const entry = (name: string, extra: Record<string, unknown>) => {
    const tools = writeJson(path.join(tmp, `${name}-tools.json`), [{ name: 'do_it', description: `Do it on ${name}`, annotations: { readOnlyHint: true } }])
    return { name, ...fixtureEntry(tools, path.join(tmp, `${name}.log`), extra) }
  }
  const entries = [entry('normal', { quarantined: false })]
  const mcpServers = style === 'array' ? entries : Object.fromEntries(entries.map(({ name, ...rest }) => [name, rest]))
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers })
  return { tmp, configPath, dataDir: path.join(tmp, 'data') }
}

describe('server names that collide with Object.prototype members', () => {
  // Such names would alias JavaScript object members in state.json and the config (an approval
  // of "__proto__" could silently vanish), so the config rejects them with a clear message.
  it.each([...TRUSTED, '__proto__'])('a config naming a server "%s" is refused (exit 2) with the JSON path and why', async (name) => {
    const tmp = tempDir('toolgate-fuzz-names-')
    for (const style of ['array', 'object'] as const) {
      const entry = { command: process.execPath, args: ['-e', '0'], quarantined: false }
      const mcpServers = style === 'array' ? [{ name, ...entry }] : JSON.parse(`{${JSON.stringify(name)}: ${JSON.stringify(entry)}}`)
      const configPath = path.join(tmp, `${style}.json`)
      fs.writeFileSync(configPath, JSON.stringify({ mcpServers }).replace('"mcpServers":{}', `"mcpServers":{${JSON.stringify(name)}:${JSON.stringify(entry)}}`))
      const r = await runCli(['servers', 'list', '--config', configPath, '--data-dir', path.join(tmp, `data-${style}`)])
      expect(r.code, `${style}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(configPath)
      expect(r.stderr).toMatch(style === 'array' ? /\$\.mcpServers\[0\]\.name/ : /\$\.mcpServers/)
      expect(r.stderr).toMatch(/reserved/)
    }
  })

  it('a normal server next to them keeps working (the refusal is about the name only)', async () => {
    const s = setup()
    const serve = await startServe({ configPath: s.configPath, dataDir: s.dataDir })
    const h = await mcpOn(serve)
    try {
      await waitForToolStatus(serve, 'normal:do_it', 'callable')
      const r = await h.call('call_tool_read', { name: 'normal:do_it', args: { on: 'normal' } })
      expect(jsonOf(r)).toEqual({ tool: 'do_it', arguments: { on: 'normal' } })
    } finally {
      await h.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 90_000)

  it('`upstream_servers add` (object-style config) of a server named like an Object.prototype member adds it (quarantined) or refuses it truthfully, leaving no stray state', async () => {
    const s = setup('object')
    const serve = await startServe({ configPath: s.configPath, dataDir: s.dataDir })
    const h = await mcpOn(serve)
    try {
      await waitForServerState(serve, 'normal', 'connected')
      const answers: string[] = []
      for (const name of ['valueOf', 'isPrototypeOf', 'propertyIsEnumerable', '__proto__']) {
        const r = await h.call('upstream_servers', { operation: 'add', name, command: process.execPath, args: ['-e', 'process.exit(0)'] })
        const text = allText(r)
        // "already exists" would be untrue: no server of that name is configured
        if (r.isError && /already exists/.test(text)) answers.push(`${name}: ${text}`)
        if (!r.isError) expect(jsonOf<{ server: { quarantined: boolean } }>(r).server.quarantined, name).toBe(true)
      }
      expect((await serve.api<{ servers: unknown[] }>('GET', '/api/v1/servers')).status).toBe(200)
      // the state is written a moment after the decisions (queued, asynchronous): read it once it exists
      await waitFor(() => fs.existsSync(path.join(s.dataDir, 'state.json')), 30_000, 'state.json written')
      const state = readState(s.dataDir)
      const config = JSON.parse(fs.readFileSync(s.configPath, 'utf8')) as { mcpServers: Record<string, unknown> }
      const configured = new Set(Object.keys(config.mcpServers))
      // no untrue "already exists", and every server record in state.json belongs to a configured server
      const stray = Object.keys(state.servers).filter((n) => !Object.hasOwn(config.mcpServers, n) || !configured.has(n))
      expect({ untrue_already_exists: answers, stray_state_records: stray }).toEqual({ untrue_already_exists: [], stray_state_records: [] })
    } finally {
      await h.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 90_000)
})
