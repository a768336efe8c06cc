// `toolgate open`: prints and opens the web UI of whichever process owns the data dir,
// with a key that works there. An embedded `toolgate stdio` owner listens on the configured
// `listen` address when it is free, else on an ephemeral port that instance.json records.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { controlApi, freePort, readInstance, runCli, tempDir, waitFor, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectStdio, type McpHandle } from '../helpers/mcp-client'

const clients: McpHandle[] = []
useCleanup(async () => {
  for (const c of clients) await c.close().catch(() => {})
})

/** A directory with a fake `xdg-open` that records the URL it was given. */
function fakeOpener(dir: string): { bin: string; seen: () => string | null } {
  const bin = path.join(dir, 'bin')
  fs.mkdirSync(bin, { recursive: true })
  const out = path.join(dir, 'opened.txt')
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${out}'\n`, { mode: 0o755 })
  return { bin, seen: () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : null) }
}

describe('toolgate open', () => {
  it('with nothing running says so and fails', async () => {
    const tmp = tempDir('toolgate-open-none-')
    const r = await runCli(['open', '--data-dir', path.join(tmp, 'data')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/Toolgate is not running/)
    expect(r.stdout).toBe('')
  })

  it('opens the web UI of an embedded stdio owner, which listens on the configured address', async () => {
    const tmp = tempDir('toolgate-open-')
    const port = await freePort()
    const dataDir = path.join(tmp, 'data')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {}, listen: `127.0.0.1:${port}` })
    const owner = await connectStdio(['--config', configPath, '--data-dir', dataDir])
    clients.push(owner)
    await waitFor(() => readInstance(dataDir)?.pid === owner.pid, 20_000, 'the stdio owner')
    expect(readInstance(dataDir)?.url).toBe(`http://127.0.0.1:${port}`)

    const opener = fakeOpener(tmp)
    const r = await runCli(['open', '--config', configPath, '--data-dir', dataDir], { env: { PATH: `${opener.bin}:${process.env.PATH}` } })
    expect(r.code, r.stderr).toBe(0)
    const url = r.stdout.trim()
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#key=\\S+$`))
    expect(opener.seen()).toBe(url)
    expect(r.stderr).toMatch(/Opened the web UI/)
    const key = url.slice(url.indexOf('#key=') + 5)
    expect((await controlApi(`http://127.0.0.1:${port}`, key, 'GET', '/api/v1/status')).status).toBe(200)

    // another data dir with the same listen address: its owner falls back to a free port
    const dataDir2 = path.join(tmp, 'data2')
    const other = await connectStdio(['--config', configPath, '--data-dir', dataDir2])
    clients.push(other)
    await waitFor(() => readInstance(dataDir2)?.pid === other.pid, 20_000, 'the second stdio owner')
    const url2 = readInstance(dataDir2)?.url as string
    expect(url2).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(url2).not.toBe(`http://127.0.0.1:${port}`)
    // no opener on PATH: the URL is printed all the same
    const r2 = await runCli(['open', '--config', configPath, '--data-dir', dataDir2], { env: { PATH: path.join(tmp, 'empty') } })
    expect(r2.code, r2.stderr).toBe(0)
    expect(r2.stdout.trim().startsWith(`${url2}/#key=`)).toBe(true)
    expect(r2.stderr).toMatch(/Open this URL in a browser/)
  })
})
