// State safety end to end: kill -9 of `toolgate serve` in the middle of bursts of control-API
// tool actions (disable / enable / approve) must never lose an acknowledged change, and must
// leave a valid state.json; a corrupt state.json at startup is moved aside, reported, and the
// system fails closed (nothing that was user-disabled becomes callable).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  assertBuilt,
  fixtureEntry,
  processRunning,
  startServe,
  stopProcess,
  tempDir,
  trackDescendants,
  waitFor,
  waitForServerState,
  waitForToolStatus,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { textOf } from '../helpers/mcp-client'
import { Rand, allText, logText, mcpOn, readState, snapshot, waitGone, type StateFile } from '../helpers/faults'

useCleanup()

const tool = (i: number): string => `t${String(i).padStart(2, '0')}`
const toolsJson = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: tool(i), description: `Tool number ${i} for the state burst`, annotations: { readOnlyHint: true } }))

type Action = 'disable' | 'enable' | 'approve'

interface ToolModel {
  disabled: boolean
  approved: boolean
}

/** What state.json says about one tool of server `st`. */
function persisted(state: StateFile, name: string): ToolModel {
  const rec = state.tools[`st:${name}`]
  return { disabled: rec?.user_disabled === true, approved: rec?.approved !== undefined }
}

describe('kill -9 during bursts of state changes', () => {
  it('never loses an acknowledged disable/enable/approve, and state.json stays valid JSON (3 rounds)', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-faults-state-')
    const dataDir = path.join(tmp, 'data')
    const toolsFile = writeJson(path.join(tmp, 'st-tools.json'), toolsJson(20))
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      // lifecycle "always": every restart after kill -9 starts it again, as the rounds wait for
      mcpServers: { st: fixtureEntry(toolsFile, path.join(tmp, 'st-calls.log'), { quarantined: false, lifecycle: 'always' }) },
    })

    // setup: the first 20 tools are the approved baseline; 20 more arrive later as pending
    let serve: Serve = await startServe({ configPath, dataDir })
    await waitForServerState(serve, 'st', 'connected')
    await waitForToolStatus(serve, 'st:t19', 'callable')
    writeJson(toolsFile, toolsJson(40))
    await waitForToolStatus(serve, 'st:t39', 'pending_approval')
    await waitForToolStatus(serve, 'st:t20', 'pending_approval')

    const N = 40
    const model = new Map<string, ToolModel>()
    for (let i = 0; i < N; i++) model.set(tool(i), { disabled: false, approved: i < 20 })

    const rounds = 3
    for (let round = 0; round < rounds; round++) {
      const rand = new Rand(0x5eed + round * 7919)
      const BURST = 200
      const WORKERS = 8
      const killAfterAcks = rand.int(40, 140)
      let sent = 0
      let acks = 0
      let killed = false
      const acked: Array<{ tool: string; action: Action; seq: number }> = []
      const inflight = new Map<string, Action>()
      const failures: string[] = []

      const kill = (): void => {
        if (killed) return
        killed = true
        trackDescendants(serve.pid) // the upstream it leaves behind is cleaned up by pid
        process.kill(serve.pid, 'SIGKILL')
      }

      const worker = async (w: number): Promise<void> => {
        const mine = Array.from({ length: N }, (_, i) => i).filter((i) => i % WORKERS === w)
        while (!killed && sent < BURST) {
          const name = tool(rand.pick(mine))
          const m = model.get(name) as ToolModel
          const action: Action = !m.approved && rand.bool(0.35) ? 'approve' : rand.bool(0.5) ? 'disable' : 'enable'
          sent++
          inflight.set(name, action)
          let status: number
          let text = ''
          try {
            const res = await fetch(`${serve.url}/api/v1/servers/st/tools/${name}/${action}`, {
              method: 'POST',
              headers: { authorization: `Bearer ${serve.key}` },
            })
            status = res.status
            text = await res.text()
          } catch {
            return // the proxy died under this request: not acknowledged (stays in `inflight`)
          }
          if (status !== 200) {
            if (!killed) failures.push(`${action} ${name} → ${status} ${text}`)
            return
          }
          inflight.delete(name)
          acked.push({ tool: name, action, seq: acks })
          if (action === 'approve') m.approved = true
          else m.disabled = action === 'disable'
          acks++
          if (acks >= killAfterAcks) kill()
        }
      }
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)))
      kill() // in case the burst ended before the kill point
      await serve.exited
      expect(failures, `round ${round}`).toEqual([])
      expect(acks, `round ${round}: acknowledged actions before the kill`).toBeGreaterThanOrEqual(killAfterAcks)

      // state.json is valid JSON, nothing was moved aside, and every acknowledged change is there
      const stateFile = path.join(dataDir, 'state.json')
      snapshot(stateFile, tmp, `round-${round}`)
      const raw = fs.readFileSync(stateFile, 'utf8')
      let state: StateFile
      try {
        state = JSON.parse(raw) as StateFile
      } catch (e) {
        throw new Error(`round ${round}: state.json is not valid JSON after kill -9: ${(e as Error).message}\n${raw.slice(0, 500)}`)
      }
      expect(state.version).toBe(2)
      expect(fs.readdirSync(dataDir).filter((f) => f.includes('corrupt'))).toEqual([])
      const lost: string[] = []
      for (const [name, m] of model) {
        const p = persisted(state, name)
        const pending = inflight.get(name) // sent but not acknowledged: may or may not have landed
        const disabledOk = p.disabled === m.disabled || (pending !== undefined && pending !== 'approve' && p.disabled === (pending === 'disable'))
        const approvedOk = p.approved === m.approved || (pending === 'approve' && p.approved)
        if (!disabledOk) lost.push(`${name}: acknowledged disabled=${m.disabled}, state.json has ${p.disabled} (in flight: ${pending ?? 'nothing'})`)
        if (!approvedOk) lost.push(`${name}: acknowledged approved=${m.approved}, state.json has ${p.approved} (in flight: ${pending ?? 'nothing'})`)
        // an unacknowledged change that did land is the new truth
        model.set(name, p)
      }
      expect(lost, `round ${round}: ${acks} acknowledged of ${sent} sent`).toEqual([])

      // a restarted proxy (taking over the stale lock) shows exactly what was persisted
      await waitGone([serve.pid], 'the killed proxy')
      serve = await startServe({ configPath, dataDir })
      await waitForServerState(serve, 'st', 'connected')
      await waitFor(
        async () => {
          const r = await serve.api<{ tools: Array<{ name: string; status: string }> }>('GET', '/api/v1/servers/st/tools')
          return r.json.tools?.length === N
        },
        20_000,
        'all tools listed after the restart',
      )
      const rows = (await serve.api<{ tools: Array<{ name: string; status: string }> }>('GET', '/api/v1/servers/st/tools')).json.tools
      const wrong: string[] = []
      for (const [name, m] of model) {
        const want = m.disabled ? 'disabled_by_user' : m.approved ? 'callable' : 'pending_approval'
        const got = rows.find((r) => r.name === `st:${name}`)?.status
        if (got !== want) wrong.push(`${name}: want ${want}, got ${got}`)
      }
      expect(wrong, `round ${round}: after restart`).toEqual([])
    }

    // the last proxy still works normally
    const h = await mcpOn(serve)
    try {
      const callable = [...model].find(([, m]) => !m.disabled && m.approved)
      if (callable) {
        const r = await h.call('call_tool_read', { name: `st:${callable[0]}`, args: { ok: true } })
        expect(r.isError, allText(r)).toBeFalsy()
      }
      const locked = [...model].find(([, m]) => m.disabled)
      if (locked) {
        const r = await h.call('call_tool_read', { name: `st:${locked[0]}`, args: {} })
        expect(r.isError).toBe(true)
        expect(textOf(r)).toMatch(/^TOOL_BLOCKED \(disabled_by_user\):/)
      }
    } finally {
      await h.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 240_000)
})

describe('a corrupt state.json at startup', () => {
  const cases: Array<{ label: string; content: string }> = [
    { label: 'not JSON', content: '{"version": 1, "tools": {"cs:b": {"user_disa' },
    { label: 'valid JSON that fails validation', content: JSON.stringify({ version: 1, servers: [], tools: { 'cs:b': { user_disabled: 'yes' } } }) },
  ]
  for (const c of cases) {
    it(`(${c.label}) is moved aside, reported in /api/v1/info and the log, and fails closed`, async () => {
      assertBuilt()
      const tmp = tempDir('toolgate-faults-corrupt-')
      const dataDir = path.join(tmp, 'data')
      const toolsFile = writeJson(path.join(tmp, 'cs-tools.json'), [
        { name: 'a', description: 'Alpha tool', annotations: { readOnlyHint: true } },
        { name: 'b', description: 'Bravo tool that the user disabled', annotations: { readOnlyHint: true } },
        { name: 'c', description: 'Charlie tool', annotations: { readOnlyHint: true } },
      ])
      const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
        // lifecycle "always": the restart on the corrupt state starts it, and what it lists fails closed
        mcpServers: { cs: fixtureEntry(toolsFile, path.join(tmp, 'cs-calls.log'), { quarantined: false, lifecycle: 'always' }) },
      })

      // the user disables cs:b; the change is on disk
      let serve = await startServe({ configPath, dataDir })
      await waitForToolStatus(serve, 'cs:b', 'callable')
      expect((await serve.api('POST', '/api/v1/servers/cs/tools/b/disable')).status).toBe(200)
      expect(readState(dataDir).tools['cs:b']?.user_disabled).toBe(true)
      expect(await stopProcess(serve.child)).toEqual({ code: 0, signal: null })

      // the state file goes bad while Toolgate is not running
      fs.writeFileSync(path.join(dataDir, 'state.json'), c.content)
      serve = await startServe({ configPath, dataDir })
      try {
        const aside = fs.readdirSync(dataDir).filter((f) => f.startsWith('state.json.corrupt-'))
        expect(aside).toHaveLength(1)
        expect(fs.readFileSync(path.join(dataDir, aside[0]), 'utf8')).toBe(c.content) // kept, not deleted
        expect(() => readState(dataDir)).not.toThrow() // a fresh, valid state.json
        expect(readState(dataDir).fail_closed).toBeTruthy()

        const info = await serve.api<{ state_warning: string | null }>('GET', '/api/v1/info')
        expect(info.status).toBe(200)
        expect(info.json.state_warning).toContain(aside[0])
        expect(logText(dataDir)).toContain(aside[0])

        // fail closed: nothing becomes callable on its own; the user-disabled tool keeps its lock
        // (restored from state.last-good.json), the others wait for a fresh decision
        await waitForServerState(serve, 'cs', 'connected')
        for (const t of ['a', 'c']) await waitForToolStatus(serve, `cs:${t}`, 'disabled_unknown')
        await waitForToolStatus(serve, 'cs:b', 'disabled_by_user')
        const h = await mcpOn(serve)
        try {
          const rb = await h.call('call_tool_read', { name: 'cs:b', args: {} })
          expect(rb.isError).toBe(true)
          expect(textOf(rb)).toMatch(/^TOOL_BLOCKED \(disabled_by_user\):/)
          const ra = await h.call('call_tool_read', { name: 'cs:a', args: {} })
          expect(ra.isError).toBe(true)
          expect(textOf(ra)).toMatch(/^TOOL_BLOCKED \(disabled_unknown\):/)
          const found = JSON.parse(textOf(await h.call('retrieve_tools', { query: 'bravo tool user disabled' }))) as { tools: unknown[] }
          expect(found.tools).toEqual([])

          // a fresh decision by the user unlocks exactly that tool
          expect((await serve.api('POST', '/api/v1/servers/cs/tools/a/approve')).status).toBe(200)
          await waitForToolStatus(serve, 'cs:a', 'callable')
          expect((await h.call('call_tool_read', { name: 'cs:a', args: {} })).isError).toBeFalsy()
          const b = await h.call('call_tool_read', { name: 'cs:b', args: {} })
          expect(b.isError).toBe(true)
        } finally {
          await h.close().catch(() => {})
        }
        expect(processRunning(serve.pid)).toBe(true)
      } finally {
        await stopProcess(serve.child)
      }
    }, 90_000)
  }
})
