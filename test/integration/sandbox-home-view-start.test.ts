// What a sandboxed server sees of the home is fixed when it starts (Linux, real bwrap): a folder
// renamed to a dot name while it runs stays seen under its old name, and with the home writable a
// dot folder made while it runs is seen; neither can be closed while it runs (a bind mount holds
// the folder; a home it writes cannot be a copy). The next start hides both, and the window's
// permissions and `toolgate servers list` say so for a server that may write the home (a real
// `toolgate serve`: isolation.home_writable).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { FIXTURE, runCli, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { catAll, probeWorld, runProbe, useProbeRoots, waitThen } from '../helpers/sandbox-probe'

const roots = useProbeRoots()

describe('the home as a server sees it: fixed at its start, made anew at the next', () => {
  it('a folder renamed to a dot name while it runs: seen under its old name (the limit), hidden at the next start', async () => {
    const w = probeWorld(roots)
    w.put('work/keys.txt', 'RENAMED-FOLDER-SECRET')
    const files = ['work/keys.txt', '.work/keys.txt'].map((r) => path.join(w.home, r))
    const script = waitThen(w, catAll(files, [w.home]))
    const during = await runProbe(w, { command: '/bin/sh', args: ['-c', script] }, () => fs.renameSync(path.join(w.home, 'work'), path.join(w.home, '.work')))
    expect(during).toContain('RENAMED-FOLDER-SECRET') // documented: the view holds the folder, not its name
    expect(during).toContain(`NO ${files[1]}`)
    const next = await runProbe(w, { command: '/bin/sh', args: ['-c', script] })
    expect(next).not.toContain('RENAMED-FOLDER-SECRET')
    expect(next).toMatch(new RegExp(`LS ${w.home}: \\.cache \\.npm notes\\.txt \\n`))
  })

  it('a writable home: a dot folder made while it runs is seen (the limit), covered at the next start', async () => {
    const w = probeWorld(roots)
    const file = path.join(w.home, '.late-app/token')
    const script = waitThen(w, catAll([file]))
    const during = await runProbe(w, { command: '/bin/sh', args: ['-c', script], sandbox: { fs_write: ['~'] } }, () =>
      w.put('.late-app/token', 'LATE-DOT-SECRET'),
    )
    expect(during).toContain('LATE-DOT-SECRET')
    const next = await runProbe(w, { command: '/bin/sh', args: ['-c', script], sandbox: { fs_write: ['~'] } })
    expect(next).not.toContain('LATE-DOT-SECRET')
    expect(next).toContain(`NO ${file}`)
  })
})

describe('what the surfaces say of a server that may write the home', () => {
  let serve: Serve
  useCleanup(async () => {
    await stopServe(serve)
  })

  it('isolation.home_writable for ~ written (and a cwd of the home), not for a subfolder; servers list says it', async () => {
    const tmp = tempDir('toolgate-home-writable-')
    const home = path.join(tmp, 'home')
    fs.mkdirSync(path.join(home, 'projects'), { recursive: true })
    const tools = path.join(tmp, 'tools.json')
    fs.writeFileSync(tools, JSON.stringify([{ name: 'ping', description: 'answers' }]))
    const entry = (sandbox: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      command: process.execPath,
      args: [FIXTURE, '--tools', tools],
      quarantined: false,
      sandbox: { network: false, fs_read: [tools], ...sandbox },
      ...extra,
    })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        homewriter: entry({ fs_write: ['~'] }),
        homecwd: entry({}, { cwd: home }),
        projects: entry({ fs_write: ['~/projects'] }),
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { HOME: home } })
    await waitForServerState(serve, 'projects', 'connected', 45_000)
    const r = await serve.api<{ servers: Array<{ name: string; isolation: { isolated: boolean; home_writable?: boolean } }> }>('GET', '/api/v1/servers')
    const iso = Object.fromEntries(r.json.servers.map((s) => [s.name, s.isolation]))
    expect(iso.homewriter).toMatchObject({ isolated: true, home_writable: true })
    expect(iso.homecwd).toMatchObject({ isolated: true, home_writable: true })
    expect(iso.projects.isolated).toBe(true)
    expect(iso.projects.home_writable).toBeUndefined()
    const list = await runCli(['servers', 'list', ...serve.flags])
    expect(list.code, list.stderr).toBe(0)
    const line = (name: string): string => list.stdout.split('\n').find((l) => l.trim().startsWith(`${name}: `)) ?? ''
    for (const name of ['homewriter', 'homecwd']) expect(line(name)).toMatch(/may write your home \(a dot folder made later is seen until it restarts\)/)
    expect(line('projects')).toMatch(/dot files and folders hidden .*, as at its start$/)
  })
})
