// A failing server's last_error in words a user understands: each sample is the text a real
// failing upstream produced through a real `toolgate serve` (test/fixtures/upstream-errors.json).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { explainServerError, retryText } from '../../src/shared/upstream-error'

const samples = JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/upstream-errors.json'), 'utf8')) as Record<string, string>

describe('explainServerError', () => {
  it.each([
    ['enoent', 'The command "toolgate-no-such-cmd" was not found.', /full path as "command"/],
    ['enoent_path', 'The command "/tmp/rui/errs/noexec.sh" was not found.', /PATH/],
    ['exit1', 'The server stopped right after it started (exit code 1).', /missing file or dependency/],
    ['handshake_timeout', 'The server did not answer within 30 s.', /slow to start/],
    ['http404', 'Nothing answers at that URL (HTTP 404).', /\/mcp/],
    ['http401', "The server refused Toolgate's credentials (HTTP 401).", /"headers"/],
    ['http500', 'The server had an internal error (HTTP 500).', /its log/],
    ['refused', "Nothing is listening at the server's address.", /host and port/],
    ['badcwd', 'The working directory "/tmp/rui/errs/nodir" does not exist.', /"cwd"/],
  ])('%s', (name, title, hint) => {
    const e = explainServerError(samples[name])
    expect(e.title).toBe(title)
    expect(e.hint).toMatch(hint)
  })

  it('keeps what an exited process said last', () => {
    expect(explainServerError(samples.exit1).said).toBe("Error: Cannot find module '/tmp/rui/errs/missing.mjs'")
  })

  it('says whether Toolgate still retries or gave up', () => {
    expect(retryText(explainServerError(samples.enoent))).toBe('Toolgate keeps retrying on its own (attempt 6).')
    expect(retryText(explainServerError(samples.refused))).toBe('Toolgate stopped retrying after 8 failures in a row.')
  })

  it('an unknown failure is still a sentence, with no guess', () => {
    expect(explainServerError('something odd happened')).toEqual({ title: 'The server failed.', hint: '', retry: null })
  })

  it('a port number is not an HTTP status', () => {
    expect(explainServerError('fetch failed: connect ECONNREFUSED 127.0.0.1:4040 (during the MCP handshake)').title).toBe(
      "Nothing is listening at the server's address.",
    )
    expect(explainServerError('Streamable HTTP error at http://127.0.0.1:4404/mcp').title).toBe('The server failed.')
  })
})

describe('a file the sandbox may hide', () => {
  // the shape a sandboxed node server's exit leaves in last_error (summarizeStderr picks the Error line)
  const exit = (said: string) => `process exited with code 1: ${said} during the MCP handshake`

  it('a missing file under a dot folder of the home: the hint names the grant for it', () => {
    const e = explainServerError(exit("Error: ENOENT: no such file or directory, open '/home/ann/.config/myapp/settings.json'"))
    expect(e.title).toMatch(/exit code 1/)
    expect(e.hint).toContain('/home/ann/.config/myapp/settings.json')
    expect(e.hint).toMatch(/"fs_read": \["\/home\/ann\/\.config\/myapp\/settings\.json"\]/)
    const dotFile = explainServerError(exit("Error: ENOENT: no such file or directory, open '/home/ann/.gitconfig'"))
    expect(dotFile.hint).toContain('"fs_read": ["/home/ann/.gitconfig"]')
  })

  it('a missing file elsewhere, or a path with only .. in it, keeps the general hint', () => {
    for (const said of [
      "Error: ENOENT: no such file or directory, open '/home/ann/projects/settings.json'",
      "Error: ENOENT: no such file or directory, open '/srv/../etc/app.json'",
      "Error: ENOENT: no such file or directory, open '/srv/./app.json'",
      "Error: Cannot find module '/home/ann/.x/missing.mjs'",
    ]) {
      expect(explainServerError(exit(said)).hint, said).toMatch(/missing file or dependency/)
    }
  })
})
