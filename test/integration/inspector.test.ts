// The official MCP Inspector (2.12.0, on SDK v2) drives Toolgate from outside,
// headless, through its CLI `mcpdo` (a private daemon per test run): over HTTP in both eras and
// over stdio, it lists, searches, calls, gets a locked call's answer, and answers a confirmation
// in the client (ask_in_client) with `elicitation/respond`.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BIN,
  ROOT,
  apiRequest,
  assertBuilt,
  fixtureEntry,
  logLines,
  runCli,
  startServe,
  tempDir,
  waitForServerState,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const run = promisify(execFile)
const MCPDO = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/mcpdo/build/mcp-bin.js')

useCleanup()

describe('the MCP Inspector (mcpdo) against Toolgate', () => {
  let tmp: string
  let serve: Serve
  let token: string
  let log: string
  let env: NodeJS.ProcessEnv

  /** One mcpdo command; its JSON output. */
  const mcpdo = async (args: string[]): Promise<Record<string, unknown>> => {
    const { stdout } = await run(process.execPath, [MCPDO, '--format', 'json', ...args], { env, timeout: 60_000 }).catch(
      (e: { stdout?: string; stderr?: string; message: string }) => {
        if (e.stdout?.trim().startsWith('{')) return { stdout: e.stdout }
        throw new Error(`mcpdo ${args.join(' ')}: ${e.message}\n${e.stderr ?? ''}`)
      },
    )
    return JSON.parse(stdout) as Record<string, unknown>
  }
  const text = (r: Record<string, unknown>): string => ((r.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? JSON.stringify(r)

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-inspector-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), [
      { name: 'read_notes', description: 'Read the notes in the notebook', annotations: { readOnlyHint: true } },
      { name: 'edit_notes', description: 'Edit the notes in the notebook', annotations: { readOnlyHint: false } },
      { name: 'peek_notes', description: 'Peek at the notes', annotations: { readOnlyHint: true } },
    ])
    log = path.join(tmp, 'logs', 'notes.log')
    fs.mkdirSync(path.dirname(log), { recursive: true })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: { ...fixtureEntry(toolsFile, log), quarantined: false, confirm: 'write', disabled_tools: ['peek_notes'] } },
      agents: [{ name: 'asker', servers: ['notes'], permissions: ['read', 'write'], ask_in_client: true }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    token = (await runCli(['agents', 'token', 'asker', ...serve.flags])).stdout.trim().split('\n')[0].trim()
    // a private, token-gated daemon under a temp HOME: nothing of the user's Inspector is touched
    const home = path.join(tmp, 'home')
    fs.mkdirSync(home)
    env = {
      ...process.env,
      HOME: home,
      MCP_INSPECTOR_DAEMON_DIR: path.join(tmp, 'daemon'),
      MCP_INSPECTOR_DAEMON_TOKEN: 'toolgate-test-daemon-token-0123456789',
    }
  }, 60_000)

  afterAll(async () => {
    await run(process.execPath, [MCPDO, 'daemon', 'stop'], { env, timeout: 15_000 }).catch(() => undefined)
    await stopServe(serve)
  })

  const exercise = async (conn: string, era: 'modern' | 'legacy', protocol: string): Promise<void> => {
    const shown = await mcpdo(['connections/show', `@${conn}`])
    expect(shown).toMatchObject({ protocolEra: era, protocolVersion: protocol, serverInfo: { name: 'toolgate' } })
    const tools = ((await mcpdo(['--connection', conn, 'tools/list'])).tools as Array<{ name: string }>).map((t) => t.name)
    expect(tools).toEqual(['retrieve_tools', 'call_tool_read', 'call_tool_write', 'describe_tool', 'upstream_servers', 'request_access'])
    const found = JSON.parse(text(await mcpdo(['--connection', conn, 'tools/call', 'retrieve_tools', '--tool-args-json', '{"query":"read the notes"}']))) as {
      tools: Array<{ name: string }>
    }
    expect(found.tools.map((t) => t.name)).toContain('notes:read_notes')
    expect(text(await mcpdo(['--connection', conn, 'tools/call', 'call_tool_read', '--tool-args-json', '{"name":"notes:read_notes","args":{"page":1}}']))).toBe(
      '{"tool":"read_notes","arguments":{"page":1}}',
    )
    expect(text(await mcpdo(['--connection', conn, 'tools/call', 'call_tool_read', '--tool-args-json', '{"name":"notes:peek_notes","args":{}}']))).toMatch(
      /^TOOL_BLOCKED \(disabled_by_config\):/,
    )
    // a call that needs the user's OK: the question comes to the Inspector, which answers it
    const before = logLines(log).filter((l) => l.tool === 'edit_notes').length
    const asked = await mcpdo([
      '--connection',
      conn,
      'tools/call',
      'call_tool_write',
      '--tool-args-json',
      `{"name":"notes:edit_notes","args":{"by":"${conn}"}}`,
    ])
    const pending = asked.elicitationPending as { elicitationId: string; message: string }
    expect(pending.message).toMatch(/Agent "asker" wants to call notes:edit_notes/)
    const done = await mcpdo(['--connection', conn, 'elicitation/respond', pending.elicitationId, 'allow:=true'])
    expect(text(done)).toBe(`{"tool":"edit_notes","arguments":{"by":"${conn}"}}`)
    expect(logLines(log).filter((l) => l.tool === 'edit_notes').length).toBe(before + 1)
    const last = (
      (await apiRequest(serve, 'GET', '/api/v1/confirmations?status=all')).json.confirmations as Array<{ status: string; answered_via?: string }>
    ).at(-1)
    expect(last).toMatchObject({ status: 'allowed', answered_via: 'client' })
  }

  it('over HTTP, 2026-07-28', { timeout: 120_000 }, async () => {
    await mcpdo(['connect', '@modern', `${serve.url}/mcp`, '--header', `Authorization: Bearer ${token}`, '--era', 'modern', '--elicit', 'form'])
    await exercise('modern', 'modern', '2026-07-28')
  })

  it('over HTTP, 2025-11-25', { timeout: 120_000 }, async () => {
    await mcpdo(['connect', '@legacy', `${serve.url}/mcp`, '--header', `Authorization: Bearer ${token}`, '--era', 'legacy', '--elicit', 'form'])
    await exercise('legacy', 'legacy', '2025-11-25')
  })

  const stdioCmd = (): string[] => ['--', process.execPath, BIN, 'stdio', ...serve.flags, '--agent', 'asker']

  it('over stdio (toolgate stdio --agent asker, bridged to the running owner), 2026-07-28', async () => {
    await mcpdo(['connect', '@stdio_modern', '--era', 'modern', '--elicit', 'form', '--connect-timeout', '60000', ...stdioCmd()])
    await exercise('stdio_modern', 'modern', '2026-07-28')
  }, 120_000)

  it('over stdio (toolgate stdio --agent asker, bridged to the running owner), 2025-11-25', async () => {
    await mcpdo(['connect', '@stdio_legacy', '--era', 'legacy', '--elicit', 'form', '--connect-timeout', '60000', ...stdioCmd()])
    await exercise('stdio_legacy', 'legacy', '2025-11-25')
  }, 120_000)
})
