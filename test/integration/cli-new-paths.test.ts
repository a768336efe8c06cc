// A typo in a path the user names creates nothing: a --data-dir that does not exist
// beside a data dir with a near name, or under folders that do not exist, is refused with the near
// name (nothing created); a new data dir beside existing folders is created as before; connect
// --write --file into a folder that does not exist creates no folders; `import claud-desktop` is
// a client's name with a typo, not a file. Without a terminal (these runs) nothing is asked.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { BIN, runCli, tempDir, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'

/** Runs the CLI on a terminal (util-linux `script` gives it a pty) and types `answer` at its question. */
function onTerminal(args: string[], answer: string): { code: number | null; out: string } {
  const cmd = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { input: answer, encoding: 'utf8', timeout: 30_000 })
  return { code: r.status, out: r.stdout + r.stderr }
}
const hasScript = spawnSync('script', ['--version']).status === 0

useCleanup()

describe('paths that do not exist yet', () => {
  it('--data-dir next to a data dir with a near name: refused with the near name, nothing created', async () => {
    const home = tempDir('toolgate-newpath-')
    const real = path.join(home, '.toolgate')
    writeJson(path.join(real, 'mcp_config.json'), { mcpServers: {} })
    const typo = path.join(home, '.toolgat')
    for (const cmd of [['servers', 'list'], ['serve', '--listen', '127.0.0.1:0'], ['stdio']]) {
      const r = await runCli([...cmd, '--data-dir', typo], { timeoutMs: 20_000, input: '' })
      expect(r.code, `${cmd.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(`Did you mean ${real}?`)
      expect(fs.existsSync(typo)).toBe(false)
    }
  })

  it('--data-dir under folders that do not exist: refused, no folder created; a new one beside existing folders works', async () => {
    const home = tempDir('toolgate-newpath-')
    const deep = path.join(home, 'projcts', 'team', 'data')
    const r = await runCli(['servers', 'list', '--data-dir', deep])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(`nor ${path.join(home, 'projcts')}`)
    expect(fs.existsSync(path.join(home, 'projcts'))).toBe(false)
    // a typo in a folder on the way: its near name
    fs.mkdirSync(path.join(home, 'projects', 'team'), { recursive: true })
    const near = await runCli(['servers', 'list', '--data-dir', deep])
    expect(near.stderr).toContain(`Did you mean ${path.join(home, 'projects', 'team', 'data')}?`)
    // a new data dir whose folder exists and has no near name: as before
    const fresh = path.join(home, 'projects', 'team', 'toolgate-data')
    const ok = await runCli(['servers', 'list', '--data-dir', fresh])
    expect(ok.code, ok.stderr).toBe(0)
    expect(fs.existsSync(path.join(fresh, 'mcp_config.json'))).toBe(true)
  })

  it('connect --write --file into a folder that does not exist: refused with the near folder, nothing created', async () => {
    const home = tempDir('toolgate-newpath-')
    const dataDir = path.join(home, 'data')
    fs.mkdirSync(path.join(home, '.cursor'))
    const file = path.join(home, '.cursr', 'mcp.json')
    const r = await runCli(['connect', 'cursor', '--write', '--file', file, '--data-dir', dataDir])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(`Did you mean ${path.join(home, '.cursor', 'mcp.json')}?`)
    expect(fs.existsSync(path.join(home, '.cursr'))).toBe(false)
    // into the folder that exists: written
    const w = await runCli(['connect', 'cursor', '--write', '--file', path.join(home, '.cursor', 'mcp.json'), '--data-dir', dataDir])
    expect(w.code, w.stderr).toBe(0)
  })

  it.runIf(hasScript)('on a terminal a new data dir outside the default place is asked for: no creates nothing, yes creates it', () => {
    const home = tempDir('toolgate-newpath-')
    const fresh = path.join(home, 'team-data')
    const no = onTerminal(['servers', 'list', '--data-dir', fresh], 'n\n')
    expect(no.out).toContain(`Create a new Toolgate data dir at ${fresh}?`)
    expect(no.code).toBe(2)
    expect(fs.existsSync(fresh)).toBe(false)
    const yes = onTerminal(['servers', 'list', '--data-dir', fresh], 'y\n')
    expect(yes.code, yes.out).toBe(0)
    expect(fs.existsSync(path.join(fresh, 'mcp_config.json'))).toBe(true)
  })

  it('import claud-desktop is a client name with a typo, not a file', async () => {
    const home = tempDir('toolgate-newpath-')
    const r = await runCli(['import', 'claud-desktop', '--dry-run', '--data-dir', path.join(home, 'data')])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/"claud-desktop" is neither a client nor a file; did you mean claude-desktop\?/)
    const none = await runCli(['import', 'no-such-file.json', '--dry-run', '--data-dir', path.join(home, 'data')])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('no such file')
  })
})
