// Config mistakes do not cost an agent every tool (docs/contract.md §8 "config mistakes"):
// `toolgate stdio` with no owner running and a typo inside one server entry (`disable_tools`)
// starts anyway without that entry, and says what is wrong in retrieve_tools' notice, in
// upstream_servers (state error, last_error with "did you mean") and in the window's
// config_error; fixing the file brings the server back. A file that does not parse still exits 2.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { MEMORY, controlApi, fixtureEntry, runCli, tempDir, waitFor, writeJson, type FixtureTool } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectStdio, jsonOf, textOf, waitForUpstreams } from '../helpers/mcp-client'

useCleanup()

const TOOLS: FixtureTool[] = [{ name: 'lookup_record', description: 'Look up a customer record by its id', annotations: { readOnlyHint: true } }]

interface Listed {
  servers: Array<{ name: string; state: string; last_error?: string | null; enabled: boolean }>
}

describe('toolgate stdio with a mistake in one server entry', () => {
  it('serves the other servers, tells the agent and the window what is wrong, and takes the fixed entry back', async () => {
    const tmp = tempDir('toolgate-cfg-mistake-')
    const dataDir = path.join(tmp, 'data')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    const memory = { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: path.join(tmp, 'memory.jsonl') }, quarantined: false }
    const good = {
      agents: [{ name: 'helper', servers: ['fixture', 'memroy'], permissions: ['read'] }],
      mcpServers: { fixture: fixtureEntry(toolsFile, path.join(tmp, 'calls.log'), { quarantined: false }), memory },
    }
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      ...good,
      mcpServers: { ...good.mcpServers, memory: { ...memory, disable_tools: ['delete_entities'] } },
    })
    // the operator's commands still refuse the file (exit 2), as before
    const strict = await runCli(['servers', 'list', '--config', configPath, '--data-dir', dataDir])
    expect(strict.code, strict.stderr).toBe(2)

    const tg = await connectStdio(['--config', configPath, '--data-dir', dataDir])
    try {
      await waitForUpstreams(tg, ['fixture'])
      // the agent: the server with the mistake is listed in state error with what to fix
      const listed = jsonOf<Listed>(await tg.call('upstream_servers', { operation: 'list' }))
      const mem = listed.servers.find((s) => s.name === 'memory')
      expect(mem, JSON.stringify(listed)).toBeDefined()
      expect(mem?.state).toBe('error')
      expect(mem?.last_error).toContain('$.mcpServers.memory.disable_tools')
      expect(mem?.last_error).toContain('did you mean "disabled_tools"')
      // a change to it is refused with the reason, not "unknown server"
      const restart = await tg.call('upstream_servers', { operation: 'restart', name: 'memory' })
      expect(restart.isError).toBe(true)
      expect(textOf(restart)).toContain('disable_tools')
      // retrieve_tools: the callable tools of the good server, and a notice naming the mistake
      const found = jsonOf<{ tools: Array<{ name: string }>; notice?: string }>(await tg.call('retrieve_tools', { query: 'look up a customer record' }))
      expect(found.tools.map((t) => t.name)).toContain('fixture:lookup_record')
      expect(found.notice).toMatch(/Server "memory" is left out.*disable_tools.*did you mean "disabled_tools"/)
      // no memory tool runs while its entry is wrong (leaving it out never loosens the policy)
      const memSearch = jsonOf<{ tools: Array<{ name: string }> }>(await tg.call('retrieve_tools', { query: 'delete entities from the knowledge graph' }))
      expect(memSearch.tools.filter((t) => t.name.startsWith('memory:'))).toEqual([])

      // the window (the owner's control API): the config error banner's text and the agent's scope note
      const inst = JSON.parse(fs.readFileSync(path.join(dataDir, 'instance.json'), 'utf8')) as { url: string; api_key_file: string }
      const key = fs.readFileSync(inst.api_key_file, 'utf8').trim()
      const info = (await controlApi<{ config_error: string | null; config_notes?: string[] }>(inst.url, key, 'GET', '/api/v1/info')).json
      expect(info.config_error).toContain('server "memory" is left out')
      expect(info.config_error).toContain('did you mean "disabled_tools"')
      expect(info.config_notes?.join(' ')).toMatch(/\$\.agents\[0\]\.servers\[1\]: no server named "memroy".*did you mean "memory"\?/)

      // an edit that does not parse: the running config stays, and the agent hears of it
      fs.writeFileSync(configPath, '{"mcpServers": ')
      const broken = await waitFor(async () => {
        const r = jsonOf<{ tools: Array<{ name: string }>; notice?: string }>(await tg.call('retrieve_tools', { query: 'look up a customer record' }))
        return r.notice?.includes('the last config that worked stays in use') ? r : undefined
      }, 10_000)
      expect(broken.notice).toContain('not valid JSON')
      expect(broken.tools.map((t) => t.name)).toContain('fixture:lookup_record')

      // the operator fixes the file: memory starts, the notice and the banner go
      writeJson(configPath, { ...good, mcpServers: { ...good.mcpServers, memory: { ...memory, disabled_tools: ['delete_entities'] } } })
      await waitForUpstreams(tg, ['fixture', 'memory'])
      const after = jsonOf<{ notice?: string }>(await tg.call('retrieve_tools', { query: 'look up a customer record' }))
      expect(after.notice ?? '').not.toContain('left out')
      await waitFor(async () => (await controlApi<{ config_error: string | null }>(inst.url, key, 'GET', '/api/v1/info')).json.config_error === null, 10_000)
      // and the policy written correctly applies
      const del = jsonOf<{ tools: Array<{ name: string }> }>(await tg.call('retrieve_tools', { query: 'delete entities from the knowledge graph' }))
      expect(del.tools.map((t) => t.name)).not.toContain('memory:delete_entities')
      expect(del.tools.some((t) => t.name.startsWith('memory:'))).toBe(true)
    } finally {
      await tg.close()
    }
  }, 120_000)

  it('"command" and "url" in one entry: left out with a message saying to keep one; a file that does not parse still exits 2', async () => {
    const tmp = tempDir('toolgate-cfg-both-')
    const dataDir = path.join(tmp, 'data')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        fixture: fixtureEntry(toolsFile, path.join(tmp, 'calls.log'), { quarantined: false }),
        both: { command: process.execPath, url: 'http://127.0.0.1:9/mcp' },
      },
    })
    const tg = await connectStdio(['--config', configPath, '--data-dir', dataDir])
    try {
      await waitForUpstreams(tg, ['fixture'])
      const both = jsonOf<{ server: { state: string; last_error: string } }>(await tg.call('upstream_servers', { operation: 'get', name: 'both' }))
      expect(both.server.state).toBe('error')
      expect(both.server.last_error).toMatch(/"command" and "url" in one entry.*not both/)
    } finally {
      await tg.close()
    }
    const broken = path.join(tmp, 'broken.json')
    fs.writeFileSync(broken, '{"mcpServers": {')
    const r = await runCli(['stdio', '--config', broken, '--data-dir', path.join(tmp, 'data2')], { timeoutMs: 30_000 })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('not valid JSON')
  }, 90_000)
})
