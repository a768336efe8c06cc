// The official MCP Inspector (2.12.0, its headless CLI `mcpdo`, a private daemon per test run) sees
// what the reference `everything` server offers besides tools, through Toolgate: its prompts (named
// `everything__<prompt>`, read with arguments), its resources (URIs naming the server, read back
// through Toolgate) and a form elicitation the server asks during a call: the question reaches
// the Inspector labelled with the server, the Inspector answers it with `elicitation/respond`, and
// the answer reaches the server (it echoes what it got). Over HTTP in both eras.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EVERYTHING, ROOT, assertBuilt, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const run = promisify(execFile)
const MCPDO = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/mcpdo/build/mcp-bin.js')

useCleanup()

describe('the MCP Inspector (mcpdo) sees the everything server’s prompts, resources and a form elicitation through Toolgate', () => {
  let serve: Serve
  let env: NodeJS.ProcessEnv

  const mcpdo = async (args: string[]): Promise<Record<string, unknown>> => {
    const { stdout } = await run(process.execPath, [MCPDO, '--format', 'json', ...args], { env, timeout: 60_000 }).catch(
      (e: { stdout?: string; stderr?: string; message: string }) => {
        if (e.stdout?.trim().startsWith('{')) return { stdout: e.stdout }
        throw new Error(`mcpdo ${args.join(' ')}: ${e.message}\n${e.stderr ?? ''}`)
      },
    )
    return JSON.parse(stdout) as Record<string, unknown>
  }

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-inspector-pt-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], quarantined: false } },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'everything', 'connected')
    await waitFor(
      async () => (await serve.api<{ prompts: unknown[] }>('GET', '/api/v1/servers/everything/prompts')).json.prompts.length > 0,
      20_000,
      'everything to list its prompts',
    )
    const home = path.join(tmp, 'home')
    fs.mkdirSync(home)
    env = {
      ...process.env,
      HOME: home,
      MCP_INSPECTOR_DAEMON_DIR: path.join(tmp, 'daemon'),
      MCP_INSPECTOR_DAEMON_TOKEN: 'toolgate-test-daemon-token-abcdef0123456789',
    }
  }, 90_000)

  afterAll(async () => {
    await run(process.execPath, [MCPDO, 'daemon', 'stop'], { env, timeout: 15_000 }).catch(() => undefined)
    await stopServe(serve)
  })

  for (const [era, protocol] of [
    ['modern', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ] as const) {
    it(`over HTTP, ${protocol}`, { timeout: 120_000 }, async () => {
      const conn = `pt_${era}`
      await mcpdo(['connect', `@${conn}`, `${serve.url}/mcp`, '--header', `Authorization: Bearer ${serve.key}`, '--era', era, '--elicit', 'form'])
      expect(await mcpdo(['connections/show', `@${conn}`])).toMatchObject({ protocolEra: era, protocolVersion: protocol })

      // prompts: listed under Toolgate's names, read with arguments
      const prompts = ((await mcpdo(['--connection', conn, 'prompts/list'])).prompts as Array<{ name: string }>).map((p) => p.name)
      expect(prompts).toContain('everything__args-prompt')
      expect(prompts).toContain('everything__simple-prompt')
      const got = await mcpdo(['--connection', conn, 'prompts/get', 'everything__args-prompt', '--prompt-args', 'city=Lyon'])
      expect(JSON.stringify(got.messages)).toContain('Lyon')

      // resources: URIs that name the server, read back through Toolgate
      const resources = (await mcpdo(['--connection', conn, 'resources/list'])).resources as Array<{ uri: string }>
      expect(resources.length).toBeGreaterThan(0)
      const first = resources[0].uri
      expect(new URL(first).host).toBe('everything.toolgate.invalid')
      const read = (await mcpdo(['--connection', conn, 'resources/read', first])).contents as Array<{ uri: string; text?: string; blob?: string }>
      expect(read[0].uri).toBe(first)
      expect(read[0].text ?? read[0].blob).toBeTruthy()

      // a form elicitation of the server, during a call: to the Inspector, labelled, answered there
      const asked = await mcpdo([
        '--connection',
        conn,
        'tools/call',
        'call_tool_write',
        '--tool-args-json',
        '{"name":"everything:trigger-elicitation-request","args":{}}',
      ])
      const pending = asked.elicitationPending as { elicitationId: string; message: string; requestedSchema?: { properties?: Record<string, unknown> } }
      expect(pending, JSON.stringify(asked)).toBeDefined()
      expect(pending.message).toMatch(/^\[From the MCP server "everything", relayed by Toolgate; not a question of Toolgate's\]/)
      expect(pending.message).toContain('Please provide inputs')
      const done = await mcpdo([
        '--connection',
        conn,
        'elicitation/respond',
        pending.elicitationId,
        JSON.stringify({ name: `Ada ${era}`, check: true, integer: 7 }),
      ])
      const text = JSON.stringify(done.content)
      expect(text).toContain(`Ada ${era}`)
      expect(text).toMatch(/accept/)
    })
  }
})
