// docs/contract.md §4 "Bad input and faults": state.json is written atomically, concurrent
// changes are serialized, an unreadable file is moved aside (kept) and the system fails closed.
// Plus the data-dir lock (§1: one owner per data dir, stale locks recovered).
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { StateStore } from '../../src/main/core/state/store'
import { stateSchema } from '../../src/main/core/state/schema'
import { DataDirLock, readLiveInstance } from '../../src/main/core/state/lock'
import { approveAll, approveTool, setToolDisabled } from '../../src/main/core/catalog/decisions'
import { ingestTools } from '../../src/main/core/catalog/decisions'
import { resolveTool } from '../../src/main/core/access/call-gate'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { makeFixture, runServer, statusOf, tmpDir, tool, agentSession } from '../helpers/catalog-fixture'

const TRUSTED = { mcpServers: { gh: { command: 'node', args: ['gh.js'], quarantined: false } } }
const TOOLS = [tool('list_repos', 'List repositories'), tool('delete_repo', 'Delete a repository')]

function readState(file: string) {
  return stateSchema().parse(JSON.parse(fs.readFileSync(file, 'utf8')))
}

describe('As a user my decisions are stored safely in state.json', () => {
  it('a change is on disk (valid JSON, mode 0600, no temp files left) when update resolves', async () => {
    const dir = tmpDir()
    const file = path.join(dir, 'state.json')
    const store = new StateStore(file)
    await store.update((s) => {
      s.tools['gh:x'] = { user_disabled: true }
    })
    expect(readState(file).tools['gh:x']).toEqual({ user_disabled: true })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(dir).sort()).toEqual(['state.json', 'state.last-good.json'])
  })

  it('readers see a change at once, before it is written', () => {
    const store = new StateStore(path.join(tmpDir(), 'state.json'))
    void store.update((s) => {
      s.servers.a = { user_quarantined: true }
    })
    expect(store.current.servers.a).toEqual({ user_quarantined: true })
    return store.settle()
  })

  it('100 concurrent updates are serialized and all of them land on disk', async () => {
    const dir = tmpDir()
    const file = path.join(dir, 'state.json')
    const store = new StateStore(file)
    const seen: string[] = []
    const all = Array.from({ length: 100 }, (_, i) =>
      store
        .update((s) => {
          s.tools[`srv:t${i}`] = { user_disabled: true }
        })
        .then(() => {
          // when update i resolves, change i is on disk
          seen.push(String(Object.keys(readState(file).tools).includes(`srv:t${i}`)))
        }),
    )
    await Promise.all(all)
    expect(seen.every((x) => x === 'true')).toBe(true)
    expect(Object.keys(readState(file).tools)).toHaveLength(100)
    expect(fs.readdirSync(dir).sort()).toEqual(['state.json', 'state.last-good.json'])
    // a restart reads exactly what was acknowledged
    expect(Object.keys(new StateStore(file).current.tools)).toHaveLength(100)
  })

  it('a concurrent reader never sees a half-written file while 200 large updates are written', async () => {
    const dir = tmpDir()
    const file = path.join(dir, 'state.json')
    const store = new StateStore(file)
    await store.update(() => {})
    let done = false
    let reads = 0
    const reader = (async () => {
      while (!done) {
        const text = fs.readFileSync(file, 'utf8')
        expect(() => stateSchema().parse(JSON.parse(text))).not.toThrow()
        reads++
        await new Promise((r) => setImmediate(r))
      }
    })()
    const big = 'x'.repeat(20_000)
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.update((s) => {
          s.tools[`srv:t${i}`] = { approved: { hash: String(i), description: big, inputSchema: {} } }
        }),
      ),
    )
    done = true
    await reader
    expect(reads).toBeGreaterThan(0)
    expect(Object.keys(readState(file).tools)).toHaveLength(200)
  })

  it('interleaved decisions through the catalog (disable + approve) all survive a restart', async () => {
    const fx = makeFixture(TRUSTED)
    await runServer(fx, 'gh', [...TOOLS, ...Array.from({ length: 20 }, (_, i) => tool(`t${i}`, `tool ${i}`))])
    await ingestTools(fx.catalog, 'gh', [...TOOLS, ...Array.from({ length: 20 }, (_, i) => tool(`t${i}`, `tool ${i}`)), tool('newer', 'new')])
    await Promise.all([...Array.from({ length: 20 }, (_, i) => setToolDisabled(fx.catalog, 'gh', `t${i}`, true)), approveTool(fx.catalog, 'gh', 'newer')])
    const again = fx.restart()
    const st = again.store.current
    for (let i = 0; i < 20; i++) expect(st.tools[`gh:t${i}`].user_disabled).toBe(true)
    expect(st.tools['gh:newer'].approved).toBeDefined()
  })

  it('config denials are never written to state.json', async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false, disabled_tools: ['delete_repo'] } } })
    await runServer(fx, 'gh', TOOLS)
    expect(statusOf(fx, 'gh:delete_repo')).toBe('disabled_by_config')
    const text = fs.readFileSync(fx.statePath, 'utf8')
    expect(text).not.toMatch(/disabled_by_config|disabled_tools|enabled_tools/)
    expect(readState(fx.statePath).tools['gh:delete_repo'].user_disabled).toBeUndefined()
  })
})

describe('As a user, an unreadable state.json never unlocks anything (fail closed)', () => {
  for (const [what, content] of [
    ['garbage bytes', '{not json at all'],
    ['valid JSON of the wrong shape', JSON.stringify({ version: 2, servers: [] })],
    ['a record with a wrong type', JSON.stringify({ version: 1, tools: { 'gh:list_repos': { user_disabled: 'yes' } } })],
  ] as const) {
    it(`${what}: the file is moved aside (kept, its name in the warning) and fail_closed is recorded`, () => {
      const dir = tmpDir()
      const file = path.join(dir, 'state.json')
      fs.writeFileSync(file, content)
      const store = new StateStore(file)
      const moved = fs.readdirSync(dir).filter((f) => f.startsWith('state.json.corrupt-'))
      expect(moved).toHaveLength(1)
      expect(fs.readFileSync(path.join(dir, moved[0]), 'utf8')).toBe(content)
      expect(store.warning).toContain(path.join(dir, moved[0]))
      expect(store.warning).toMatch(/fails closed/)
      expect(store.current.fail_closed?.moved_to).toBe(path.join(dir, moved[0]))
      // the new file is valid and remembers that it failed closed
      expect(readState(file).fail_closed?.moved_to).toBe(path.join(dir, moved[0]))
      // a restart keeps failing closed and does not move the (now valid) file again
      const again = new StateStore(file)
      expect(again.warning).toBeNull()
      expect(again.current.fail_closed).toBeDefined()
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('state.json.corrupt-'))).toHaveLength(1)
    })
  }

  it('tools of a config-trusted server listed afterwards are disabled_unknown and not callable, until approved', async () => {
    const fx = makeFixture(TRUSTED, { state: '\u0000\u0001 truncated' })
    expect(fx.store.current.fail_closed).toBeDefined()
    await ingestTools(fx.catalog, 'gh', TOOLS)
    expect(statusOf(fx, 'gh:list_repos')).toBe('disabled_unknown')
    expect(statusOf(fx, 'gh:delete_repo')).toBe('disabled_unknown')
    const gate = resolveTool(fx.catalog, FULL_SCOPE, 'gh:list_repos')
    expect(gate.ok).toBe(false)
    if (!gate.ok) expect(gate.message).toMatch(/^TOOL_BLOCKED \(disabled_unknown\):/)
    // a second list (reconnect) still takes no baseline
    await ingestTools(fx.catalog, 'gh', TOOLS)
    expect(statusOf(fx, 'gh:list_repos')).toBe('disabled_unknown')
    // the user reviews one tool
    await approveTool(fx.catalog, 'gh', 'list_repos')
    expect(statusOf(fx, 'gh:list_repos')).toBe('callable')
    expect(statusOf(fx, 'gh:delete_repo')).toBe('disabled_unknown')
    expect(resolveTool(fx.catalog, FULL_SCOPE, 'gh:list_repos').ok).toBe(true)
  })

  it('trust:"auto" does not auto-approve while failing closed', async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false, trust: 'auto' } } }, { state: 'nope' })
    await ingestTools(fx.catalog, 'gh', TOOLS)
    expect(statusOf(fx, 'gh:list_repos')).toBe('disabled_unknown')
  })

  it('a server the user had approved is back in quarantine after the state was lost', async () => {
    const fx = makeFixture({ mcpServers: { gh: { command: 'node', args: ['gh.js'] } } })
    await runServer(fx, 'gh', TOOLS)
    expect(statusOf(fx, 'gh:list_repos')).toBe('callable')
    fs.writeFileSync(fx.statePath, '{"version":1,"servers":')
    const after = fx.restart()
    expect(after.catalog.quarantineOf(after.catalog.serverConfig('gh')!)).toBe('review')
  })

  it('a user-disabled tool never becomes callable after corruption, by any list or discovery', async () => {
    const fx = makeFixture(TRUSTED)
    await runServer(fx, 'gh', TOOLS)
    await setToolDisabled(fx.catalog, 'gh', 'delete_repo', true)
    expect(statusOf(fx, 'gh:delete_repo')).toBe('disabled_by_user')
    // the file is damaged (e.g. a partial write by another program), and so is its last good copy
    fs.writeFileSync(fx.statePath, fs.readFileSync(fx.statePath, 'utf8').slice(0, 40))
    fs.writeFileSync(fx.store.backupFile, '{"version": 2, "tools": ')
    const after = fx.restart()
    expect(after.store.warning).toMatch(/moved to/)
    // before the upstream lists anything, nothing from it is callable
    expect(after.catalog.entries('gh').filter((e) => e.status === 'callable')).toEqual([])
    // the upstream connects and lists its tools (twice, as on a reconnect)
    await ingestTools(after.catalog, 'gh', TOOLS)
    await ingestTools(after.catalog, 'gh', TOOLS)
    expect(statusOf(after, 'gh:delete_repo')).not.toBe('callable')
    expect(statusOf(after, 'gh:delete_repo')).toBe('disabled_unknown')
    // the agent looks around and tries it
    const agent = await agentSession(after)
    await agent.text('retrieve_tools', { query: 'delete repository', include_disabled: true })
    const r = await agent.text('call_tool_destructive', { name: 'gh:delete_repo' })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/^TOOL_BLOCKED \(disabled_unknown\):/)
    expect(statusOf(after, 'gh:delete_repo')).toBe('disabled_unknown')
  })

  it('with a readable last good copy, a user-disabled tool stays disabled_by_user after corruption', async () => {
    const fx = makeFixture(TRUSTED)
    await runServer(fx, 'gh', TOOLS)
    await setToolDisabled(fx.catalog, 'gh', 'delete_repo', true)
    fs.writeFileSync(fx.statePath, 'garbage')
    const after = fx.restart()
    expect(after.store.warning).toMatch(/restored from/)
    await ingestTools(after.catalog, 'gh', TOOLS)
    expect(statusOf(after, 'gh:delete_repo')).toBe('disabled_by_user')
    // what was approved is not restored: the other tools wait for review (fail closed)
    expect(statusOf(after, 'gh:list_repos')).toBe('disabled_unknown')
  })

  it("approve-all after corruption is the user's explicit act and resumes normal baselines for that server", async () => {
    const fx = makeFixture(TRUSTED, { state: 'xx' })
    await ingestTools(fx.catalog, 'gh', TOOLS)
    // tools whose approval was lost are approved only as reviewed (each one's hash)
    expect((await approveAll(fx.catalog, 'gh')).message).toMatch(/Approved nothing.*wait for your review of each/)
    expect(statusOf(fx, 'gh:list_repos')).toBe('disabled_unknown')
    // a second click does not turn them into "new" tools that approve together
    expect((await approveAll(fx.catalog, 'gh')).waiting.sort()).toEqual(['delete_repo', 'list_repos'])
    expect(statusOf(fx, 'gh:list_repos')).toBe('disabled_unknown')
    await approveAll(fx.catalog, 'gh', Object.fromEntries(fx.catalog.entries('gh').map((e) => [e.name, e.hash])))
    expect(statusOf(fx, 'gh:list_repos')).toBe('callable')
    await ingestTools(fx.catalog, 'gh', [...TOOLS, tool('later', 'A later tool')])
    expect(statusOf(fx, 'gh:later')).toBe('pending_approval')
  })
})

describe('As an operator only one process owns a data dir', () => {
  it('taking the lock writes our pid; the same process may take it again (same pid)', () => {
    const dir = tmpDir()
    const a = DataDirLock.tryAcquire(dir)
    expect(a).not.toBeNull()
    expect(fs.readFileSync(DataDirLock.lockPath(dir), 'utf8')).toBe(String(process.pid))
    const b = DataDirLock.tryAcquire(dir)
    expect(b).not.toBeNull()
    b!.release()
    expect(fs.existsSync(DataDirLock.lockPath(dir))).toBe(false)
  })

  it('a lock held by another live pid is refused (null) and left untouched', () => {
    const dir = tmpDir()
    const other = process.ppid
    fs.writeFileSync(DataDirLock.lockPath(dir), String(other))
    expect(DataDirLock.tryAcquire(dir)).toBeNull()
    expect(fs.readFileSync(DataDirLock.lockPath(dir), 'utf8')).toBe(String(other))
  })

  it('a live child process holding the lock keeps it; once it died the lock is recovered', async () => {
    const dir = tmpDir()
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
    try {
      fs.writeFileSync(DataDirLock.lockPath(dir), String(child.pid))
      expect(DataDirLock.tryAcquire(dir)).toBeNull()
    } finally {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGKILL')
      await exited
    }
    const lock = DataDirLock.tryAcquire(dir)
    expect(lock).not.toBeNull()
    expect(fs.readFileSync(DataDirLock.lockPath(dir), 'utf8')).toBe(String(process.pid))
    lock!.release()
  })

  it('a stale lock with a dead pid (999999) is recovered, and its instance.json removed', () => {
    const dir = tmpDir()
    fs.writeFileSync(DataDirLock.lockPath(dir), '999999')
    fs.writeFileSync(
      DataDirLock.instancePath(dir),
      JSON.stringify({ pid: 999999, url: 'http://127.0.0.1:1', mcp_url: null, started_at: 'x', version: '0', kind: 'serve', api_key_file: null }),
    )
    expect(readLiveInstance(dir)).toBeNull()
    const lock = DataDirLock.tryAcquire(dir)
    expect(lock).not.toBeNull()
    expect(fs.readFileSync(DataDirLock.lockPath(dir), 'utf8')).toBe(String(process.pid))
    expect(fs.existsSync(DataDirLock.instancePath(dir))).toBe(false)
    lock!.release()
  })

  it('a lock file with garbage in it is recovered', () => {
    const dir = tmpDir()
    fs.writeFileSync(DataDirLock.lockPath(dir), 'not a pid')
    const lock = DataDirLock.tryAcquire(dir)
    expect(lock).not.toBeNull()
    lock!.release()
  })

  it('release does not remove a lock another process took over', () => {
    const dir = tmpDir()
    const lock = DataDirLock.tryAcquire(dir)!
    fs.writeFileSync(DataDirLock.lockPath(dir), String(process.ppid))
    lock.release()
    expect(fs.readFileSync(DataDirLock.lockPath(dir), 'utf8')).toBe(String(process.ppid))
  })
})
