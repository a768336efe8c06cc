// `toolgate import FILE --secrets` with the real CLI: tokens in a client's env and headers go
// into the secret store, the Toolgate config gets ${secret:NAME}, a clash never overwrites a
// stored secret, a dry run stores nothing, and the imported server starts with the value.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, runCli, startServe, stopProcess, tempDir, waitFor, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { SecretStore } from '../../src/main/core/secrets/store'

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo-env-server.mjs')
const GH_WORK = 'ghp_WorkAccountToken_1234567890abcdefABCD'
const GH_HOME = 'ghp_HomeAccountToken_0987654321zyxwvuWXYZ'
const BEARER = 'Bearer sk_remote_abcdefghijklmnopqrstu12345'

describe('import --secrets', () => {
  let dir: string
  let dataDir: string
  let configPath: string
  let source: string
  let echoOut: string
  const flags = (): string[] => ['--config', configPath, '--data-dir', dataDir]

  beforeAll(() => {
    assertBuilt()
    dir = tempDir('tg-import-secrets-')
    dataDir = path.join(dir, 'data')
    configPath = path.join(dir, 'mcp_config.json')
    source = path.join(dir, 'claude_desktop_config.json')
    echoOut = path.join(dir, 'echo.jsonl')
    writeJson(source, {
      mcpServers: {
        work: {
          command: process.execPath,
          args: [ECHO],
          cwd: dir, // writable in the sandbox: where the fixture reports what it received
          env: { GITHUB_TOKEN: GH_WORK, ECHO_OUT: echoOut, ECHO_VARS: 'GITHUB_TOKEN,LOG_LEVEL', LOG_LEVEL: 'debug' },
        },
        home: { command: process.execPath, args: [ECHO, '--home'], env: { GITHUB_TOKEN: GH_HOME } },
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: BEARER, 'X-Region': 'eu' } },
      },
    })
  })

  useCleanup()

  it('a dry run says what would move and stores nothing', async () => {
    const r = await runCli(['import', source, '--secrets', '--dry-run', ...flags()])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('would move work env.GITHUB_TOKEN into the secret store as GITHUB_TOKEN')
    expect(r.stdout).toContain('would move home env.GITHUB_TOKEN into the secret store as GITHUB_TOKEN_HOME')
    expect(r.stdout).toContain('would move remote headers.Authorization into the secret store as REMOTE_AUTHORIZATION')
    expect(fs.existsSync(path.join(dataDir, 'secrets.json'))).toBe(false)
    expect(r.stdout + r.stderr).not.toContain(GH_WORK)
  })

  it('moves the tokens into the store and writes references; nothing secret lands in the config', async () => {
    const r = await runCli(['import', source, '--secrets', ...flags()])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('moved work env.GITHUB_TOKEN into the secret store as GITHUB_TOKEN')
    expect(r.stdout).toMatch(/note: No keyring on this machine: secrets are encrypted with a key file in the data dir \(.*secrets\.key\)/)
    const cfg = JSON.parse(fs.readFileSync(configPath, 'utf8'))
    expect(cfg.mcpServers.work.env).toEqual({
      GITHUB_TOKEN: '${secret:GITHUB_TOKEN}',
      ECHO_OUT: echoOut,
      ECHO_VARS: 'GITHUB_TOKEN,LOG_LEVEL',
      LOG_LEVEL: 'debug',
    })
    expect(cfg.mcpServers.home.env).toEqual({ GITHUB_TOKEN: '${secret:GITHUB_TOKEN_HOME}' })
    expect(cfg.mcpServers.remote.headers).toEqual({ Authorization: '${secret:REMOTE_AUTHORIZATION}', 'X-Region': 'eu' })
    const text = fs.readFileSync(configPath, 'utf8')
    for (const v of [GH_WORK, GH_HOME, BEARER]) expect(text).not.toContain(v)
    const store = new SecretStore({ dataDir })
    expect(store.get('GITHUB_TOKEN')).toBe(GH_WORK)
    expect(store.get('GITHUB_TOKEN_HOME')).toBe(GH_HOME)
    expect(store.get('REMOTE_AUTHORIZATION')).toBe(BEARER)
  })

  it('the imported server starts with its token, once approved', async () => {
    const serve = await startServe({ configPath, dataDir })
    try {
      const approve = await runCli(['servers', 'approve', 'work', ...flags()])
      expect(approve.code).toBe(0)
      // the fixture creates the file, then writes its line: wait for the whole line
      await waitFor(() => fs.existsSync(echoOut) && fs.readFileSync(echoOut, 'utf8').includes('\n'), 30_000, 'work started and wrote its line')
      const line = JSON.parse(fs.readFileSync(echoOut, 'utf8').split('\n')[0])
      expect(line.env).toEqual({ GITHUB_TOKEN: GH_WORK, LOG_LEVEL: 'debug' })
    } finally {
      await stopProcess(serve.child)
    }
  })

  it('without --secrets the import copies values as before, and suggests --secrets', async () => {
    const other = path.join(dir, 'other.json')
    writeJson(other, { mcpServers: { plain: { command: process.execPath, args: [ECHO, '--plain'], env: { API_KEY: 'abc123' } } } })
    const r = await runCli(['import', other, ...flags()])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('tip: `--secrets` moves tokens')
    expect(JSON.parse(fs.readFileSync(configPath, 'utf8')).mcpServers.plain.env).toEqual({ API_KEY: 'abc123' })
  })
})
