// Start-up with many upstreams: `initialize` does not wait for upstream processes to
// spawn; while a server is still starting, retrieve_tools waits for it (up to 3 s) and then says
// how many are still starting, and a call to one of its tools waits for it instead of answering
// "unknown tool".
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, assertBuilt, fixtureEntry, processesMatching, tempDir, waitFor, writeJson, type FixtureTool } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectStdio, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'

const MISBEHAVING = path.join(ROOT, 'test/fixtures/faults/misbehaving-server.mjs')
const TOOLS: FixtureTool[] = [{ name: 'read_doc', description: 'Read a document from the team wiki', annotations: { readOnlyHint: true } }]

useCleanup()

describe('an embedded `toolgate stdio` while its upstreams start', () => {
  it('answers initialize before it has spawned 70 upstream processes', async () => {
    const tmp = tempDir('toolgate-start70-')
    const toolsFile = writeJson(path.join(tmp, 'tools-70.json'), TOOLS)
    const servers: Record<string, unknown> = {}
    for (let i = 0; i < 70; i++) servers[`s${i}`] = fixtureEntry(toolsFile, path.join(tmp, 'calls.log'), { quarantined: false })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: servers })
    const c = await connectStdio(['--config', configPath, '--data-dir', path.join(tmp, 'data')])
    try {
      // connectStdio resolves once initialize is answered; the old owner spawned all 70 first
      const spawned = processesMatching(toolsFile).length
      expect(spawned).toBeLessThan(70)
      // retrieve_tools waits up to 3 s for servers still starting; on a busy machine none of the 70
      // may be up by then, and the answer must then say how many are still starting. Asked again
      // until one is up; every answer is checked after: only the fixture's tools, an empty one says why.
      const answers: Array<{ tools: string[]; notice?: string }> = []
      await waitFor(
        async () => {
          const r = jsonOf<{ tools: Array<{ name: string }>; notice?: string }>(await c.call('retrieve_tools', { query: 'read a wiki document', limit: 100 }))
          answers.push({ tools: r.tools.map((t) => t.name), notice: r.notice })
          return r.tools.length > 0
        },
        90_000,
        'retrieve_tools to find a tool of one of the 70 servers',
        0,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; answers: ${JSON.stringify(answers)}`)
      })
      for (const a of answers) {
        for (const name of a.tools) expect(name).toMatch(/^s\d+:read_doc$/)
        if (a.tools.length > 0) continue
        const starting = /^(\d+) server\(s\) are still starting/.exec(a.notice ?? '')
        expect(starting, `an empty answer says servers are still starting: ${JSON.stringify(a)}`).not.toBeNull()
        expect(Number(starting?.[1])).toBeGreaterThan(0)
        expect(Number(starting?.[1])).toBeLessThanOrEqual(70)
      }
    } finally {
      await c.close()
    }
  }, 120_000)

  describe('one server held in its handshake', () => {
    let tmp: string
    let gate: string
    let c: McpHandle

    beforeAll(async () => {
      assertBuilt()
      tmp = tempDir('toolgate-starting-')
      // the gate appears after the server started: in a folder of its own, since the config's
      // folder is shown to a sandboxed server as it was at its start (see Isolation in the docs)
      const gateDir = path.join(tmp, 'gate-dir')
      fs.mkdirSync(gateDir)
      gate = path.join(gateDir, 'gate')
      const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
      const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
        mcpServers: {
          wiki: fixtureEntry(toolsFile, path.join(tmp, 'calls.log'), { quarantined: false }),
          // the gate file is looked for from inside the sandbox
          slow: { command: process.execPath, args: [MISBEHAVING, '--init-gate', gate], quarantined: false, sandbox: { fs_read: [gateDir] } },
        },
      })
      c = await connectStdio(['--config', configPath, '--data-dir', path.join(tmp, 'data')])
    }, 60_000)

    afterAll(async () => {
      await c?.close()
    })

    it('retrieve_tools waits, then answers with what is there and a notice naming how many servers are still starting', async () => {
      const r = jsonOf<{ tools: Array<{ name: string }>; notice?: string }>(await c.call('retrieve_tools', { query: 'read a wiki document' }))
      expect(r.tools.map((t) => t.name)).toContain('wiki:read_doc')
      expect(r.notice).toMatch(/^1 server\(s\) are still starting/)
    })

    it('a call to a tool of the server still starting waits, and says so when it is still not ready', async () => {
      const r = await c.call('call_tool_read', { name: 'slow:echo', args: { text: 'hi' } })
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/server "slow" is still starting \(waited 3 s\); retry/)
    })

    it('a call made while the server starts gets through once it is up (no "unknown tool")', async () => {
      const call = c.call('call_tool_read', { name: 'slow:echo', args: { text: 'waited' } })
      fs.writeFileSync(gate, 'open')
      const r = await call
      expect(r.isError, textOf(r)).toBeFalsy()
      expect(textOf(r)).toBe('echo: waited')
      const after = jsonOf<{ tools: Array<{ name: string }>; notice?: string }>(await c.call('retrieve_tools', { query: 'echo the text back' }))
      expect(after.tools.map((t) => t.name)).toContain('slow:echo')
      expect(after.notice).toBeUndefined()
    })
  })
})
