// Learning from use end to end: an agent searches, then calls a tool that was not the
// top result; the same search afterwards lifts that tool (by at most the cap), the record lands in
// <data-dir>/search-learned.json, `search.learn: false` switches the lift off and stops recording,
// and `toolgate forget-searches` (DELETE /api/v1/search/learned) forgets everything.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixtureEntry, runCli, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { jsonOf } from '../helpers/mcp-client'
import { mcpOn } from '../helpers/faults'

useCleanup()

const TOOLS = [
  { name: 'list_notes', description: 'List all notes in the notebook.', annotations: { readOnlyHint: true } },
  { name: 'recent_activity', description: 'Show what changed lately in the notebook.', annotations: { readOnlyHint: true } },
  { name: 'weather_now', description: 'Current weather for a city.', annotations: { readOnlyHint: true } },
]
const QUERY = 'list the notes in my notebook'

interface Retrieved {
  tools: Array<{ name: string; score: number }>
}

describe('learning from use (search.learn)', () => {
  it('lifts the tool an agent called after a search, capped; can be switched off and forgotten', async () => {
    const tmp = tempDir('toolgate-learn-')
    const dataDir = path.join(tmp, 'data')
    const toolsFile = writeJson(path.join(tmp, 'nb-tools.json'), TOOLS)
    const entry = fixtureEntry(toolsFile, path.join(tmp, 'calls.log'), { quarantined: false })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: { nb: entry }, search: { learn: true } })
    const learnedFile = path.join(dataDir, 'search-learned.json')
    const serve = await startServe({ configPath, dataDir })
    try {
      await waitForServerState(serve, 'nb', 'connected')
      const mcp = await mcpOn(serve)
      const search = async (): Promise<Map<string, number>> => {
        const r = jsonOf<Retrieved>((await mcp.client.callTool({ name: 'retrieve_tools', arguments: { query: QUERY } })) as never)
        return new Map(r.tools.map((t) => [t.name, t.score]))
      }
      const before = await search()
      const top = Math.max(...before.values())
      expect([...before.keys()][0]).toBe('nb:list_notes')
      expect(before.has('nb:weather_now')).toBe(false)

      // the agent searched (above), then called recent_activity
      const call = await mcp.client.callTool({ name: 'call_tool_read', arguments: { name: 'nb:recent_activity', args: {} } })
      expect(call.isError).toBeFalsy()
      const file = await waitFor(() => fs.existsSync(learnedFile) && JSON.parse(fs.readFileSync(learnedFile, 'utf8')), 10_000, 'search-learned.json')
      expect(file.records).toEqual([expect.objectContaining({ tool: 'nb:recent_activity', count: 1 })])

      const after = await search()
      const lifted = after.get('nb:recent_activity') as number
      expect(lifted).toBeGreaterThan(before.get('nb:recent_activity') as number)
      // the cap: at most half the best score on top of its own
      expect(lifted).toBeLessThanOrEqual((before.get('nb:recent_activity') as number) + 0.5 * top + 0.002)
      expect(after.get('nb:list_notes')).toBe(before.get('nb:list_notes'))

      // a call with no search before it in this session teaches nothing
      const other = await mcpOn(serve)
      await other.client.callTool({ name: 'call_tool_read', arguments: { name: 'nb:weather_now', args: {} } })
      await other.client.close()

      // switched off: no lift, nothing recorded
      writeJson(configPath, { mcpServers: { nb: entry }, search: { learn: false } })
      await waitFor(async () => (await search()).get('nb:recent_activity') === before.get('nb:recent_activity'), 15_000, 'lift gone after search.learn:false')
      await mcp.client.callTool({ name: 'call_tool_read', arguments: { name: 'nb:weather_now', args: {} } })

      // switched back on: the old record counts again; then forget everything
      writeJson(configPath, { mcpServers: { nb: entry }, search: { learn: true } })
      await waitFor(async () => (await search()).get('nb:recent_activity') === lifted, 15_000, 'lift back after search.learn:true')
      // `toolgate forget-searches` reaches the live instance through DELETE /api/v1/search/learned
      const forget = await runCli(['forget-searches', '--config', configPath, '--data-dir', dataDir], { env: { TOOLGATE_API_KEY: serve.key } })
      expect(forget.stderr).toBe('')
      expect(forget.stdout).toBe('forgot 1 learned search(es)\n')
      expect(forget.code).toBe(0)
      expect(JSON.parse(fs.readFileSync(learnedFile, 'utf8')).records).toEqual([])
      expect((await search()).get('nb:recent_activity')).toBe(before.get('nb:recent_activity'))
      await mcp.client.close()
    } finally {
      await stopProcess(serve.child)
    }
  })
})
