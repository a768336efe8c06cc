// attack: a server whose program lies in a credentials folder (~/.ssh/x, ~/.aws/bin/tool) or
// whose arguments name a file in one. The sandbox showed "the program's own folder" (and the
// folder of an argument under a temp dir), which was the credentials folder itself: its keys were
// readable. Now such a launch is refused with the grant to add, a grant of the program alone shows
// just that file, and an argument never shows a hidden folder. Real bwrap, a real `toolgate serve`.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { SandboxGrantError } from '../../src/main/core/upstream/sandbox'
import { assertBuilt, FIXTURE, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { catAll, probeSpec, probeWorld, runProbe, useProbeRoots, waitThen, type ProbeWorld } from '../helpers/sandbox-probe'

const roots = useProbeRoots()

/** A program that runs its first argument with sh (the probe's script). */
const shProgram = (w: ProbeWorld, rel: string): string => w.put(rel, '#!/bin/sh\nexec /bin/sh -c "$1"\n', 0o755)

describe('attack: a program inside a credentials folder', () => {
  it('~/.ssh/x and ~/.aws/bin/tool are refused, naming the grant to add; nothing starts', () => {
    const w = probeWorld(roots)
    w.put('.ssh/id_rsa', 'SSH-PRIVATE-KEY')
    w.put('.aws/credentials', 'AWS-SECRET')
    for (const rel of ['.ssh/x', '.aws/bin/tool']) {
      const program = shProgram(w, rel)
      let thrown: unknown = null
      try {
        probeSpec(w, { command: program, args: ['true'], sandbox: { network: false } })
      } catch (e) {
        thrown = e
      }
      expect(thrown, rel).toBeInstanceOf(SandboxGrantError)
      const message = (thrown as Error).message
      expect(message).toContain(path.join(w.home, rel.split('/')[0]))
      expect(message).toContain(`"fs_read": ["${program}"]`)
    }
  })

  it('granted alone, the program runs and sees its own file in that folder, not the keys beside it', async () => {
    const w = probeWorld(roots)
    w.put('.ssh/id_rsa', 'SSH-PRIVATE-KEY')
    w.put('.ssh/config', 'Host SSH-CONFIG')
    const program = shProgram(w, '.ssh/x')
    const body = catAll([path.join(w.home, '.ssh/id_rsa'), path.join(w.home, '.ssh/config')], [path.join(w.home, '.ssh')])
    const out = await runProbe(w, { command: program, args: [waitThen(w, `${body}; echo RAN-FROM-SSH`)], sandbox: { fs_read: [program] } })
    expect(out).toContain('RAN-FROM-SSH')
    expect(out).not.toMatch(/SSH-PRIVATE-KEY|SSH-CONFIG/)
    expect(out).toMatch(new RegExp(`LS ${w.home}/.ssh: x \\n`))
  })

  it('a grant of its folder inside the credentials folder (~/.aws/bin) shows that folder, not the credentials', async () => {
    const w = probeWorld(roots)
    w.put('.aws/credentials', 'AWS-SECRET')
    const program = shProgram(w, '.aws/bin/tool')
    const body = catAll([path.join(w.home, '.aws/credentials')], [path.join(w.home, '.aws')])
    const out = await runProbe(w, { command: program, args: [waitThen(w, `${body}; echo RAN-FROM-AWS`)], sandbox: { fs_read: ['~/.aws/bin'] } })
    expect(out).toContain('RAN-FROM-AWS')
    expect(out).not.toContain('AWS-SECRET')
    expect(out).toMatch(new RegExp(`LS ${w.home}/.aws: bin \\n`))
  })

  it('a grant of the whole home does not show it (the credentials folder stays hidden inside the grant): refused', () => {
    const w = probeWorld(roots)
    const program = shProgram(w, '.ssh/x')
    expect(() => probeSpec(w, { command: program, sandbox: { network: false, fs_read: ['~'] } })).toThrow(SandboxGrantError)
  })
})

describe('attack: an argument naming a file in a credentials folder under a temp dir', () => {
  it('does not show that folder (a home under /tmp: ~/.ssh/id_rsa)', async () => {
    const w = probeWorld(roots)
    const key = w.put('.ssh/id_rsa', 'SSH-PRIVATE-KEY')
    w.put('.ssh/id_ed25519', 'OTHER-SSH-KEY')
    const body = catAll([key, path.join(w.home, '.ssh/id_ed25519')], [path.join(w.home, '.ssh')])
    const out = await runProbe(w, { command: '/bin/sh', args: ['-c', waitThen(w, `${body}; echo DONE`), key] })
    expect(out).toContain('DONE')
    expect(out).not.toMatch(/SSH-PRIVATE-KEY|OTHER-SSH-KEY/)
  })

  it("does not show the user's runtime folder /run/user/<uid> (session bus, agent sockets)", async (ctx) => {
    const uid = process.getuid?.() ?? null
    if (uid === null) return ctx.skip()
    const dir = `/run/user/${uid}`
    let made = false
    if (!fs.existsSync(dir)) {
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
        made = true
      } catch {
        return ctx.skip() // neither there nor ours to make
      }
    }
    const file = path.join(dir, `tg-probe-${process.pid}`)
    fs.writeFileSync(file, 'RUNTIME-DIR-SECRET')
    try {
      const w = probeWorld(roots)
      const out = await runProbe(w, { command: '/bin/sh', args: ['-c', waitThen(w, `${catAll([file], [dir])}; echo DONE`), file] })
      expect(out).toContain('DONE')
      expect(out).not.toContain('RUNTIME-DIR-SECRET')
      expect(out).toContain(`NO ${file}`)
      expect(out).not.toMatch(new RegExp(`LS ${dir}:[^\\n]*tg-probe`))
    } finally {
      fs.rmSync(made ? dir : file, { recursive: true, force: true })
    }
  })
})

describe('through a real toolgate serve', () => {
  let serve: Serve
  useCleanup(async () => {
    await stopServe(serve)
  })

  it('the server in ~/.aws/bin is in error at once with the grant to add; the same program granted alone connects', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-program-in-credentials-')
    const home = path.join(tmp, 'home')
    const bin = path.join(home, '.aws', 'bin')
    fs.mkdirSync(bin, { recursive: true })
    fs.writeFileSync(path.join(home, '.aws', 'credentials'), 'AWS-SECRET')
    const program = path.join(bin, 'mcp-tool')
    fs.writeFileSync(program, `#!/bin/sh\nexec ${process.execPath} ${FIXTURE} --tools ${path.join(tmp, 'tools.json')}\n`, { mode: 0o755 })
    fs.writeFileSync(path.join(tmp, 'tools.json'), JSON.stringify([{ name: 'ping', description: 'answers' }]))
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        refused: { command: program, quarantined: false, sandbox: { network: false } },
        granted: { command: program, quarantined: false, sandbox: { network: false, fs_read: [program, tmp + '/tools.json'] } },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { HOME: home } })
    await waitForServerState(serve, 'granted', 'connected', 45_000)
    // no retry changes what the plan refuses: state error at once (before: retried with backoff for ~90 s)
    await waitForServerState(serve, 'refused', 'error', 15_000)
    const r = await serve.api<{ servers: Array<{ name: string; state: string; last_error: string | null }> }>('GET', '/api/v1/servers')
    const refused = r.json.servers.find((s) => s.name === 'refused')
    expect(refused?.last_error).not.toMatch(/reconnecting|consecutive failures/)
    expect(refused?.last_error).toContain(path.join(home, '.aws'))
    expect(refused?.last_error).toContain(`"fs_read": ["${program}"]`)
  })
})
