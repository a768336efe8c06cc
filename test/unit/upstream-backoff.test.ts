// Backoff (exponential delays, crash-loop breaker) and the crash-reason picker.
import { describe, expect, it } from 'vitest'
import { Backoff, delayFor } from '../../src/main/core/upstream/backoff'
import { summarizeStderr } from '../../src/main/core/upstream/transport'

describe('Backoff', () => {
  const opts = { initialMs: 100, maxMs: 1000, maxAttempts: 6 }

  it('doubles the delay per consecutive failure, capped at maxMs', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => delayFor(n, opts))).toEqual([100, 200, 400, 800, 1000, 1000])
    expect(delayFor(1000, opts)).toBe(1000)
  })

  it('trips after maxAttempts consecutive failures, and reset() starts over', () => {
    const b = new Backoff(opts)
    expect([b.fail(), b.fail(), b.fail(), b.fail(), b.fail()]).toEqual([100, 200, 400, 800, 1000])
    expect(b.fail()).toBeNull()
    expect(b.count).toBe(6)
    b.reset()
    expect(b.fail()).toBe(100)
  })

  it('maxAttempts 1 means no retry at all', () => {
    expect(new Backoff({ initialMs: 1, maxMs: 1, maxAttempts: 1 }).fail()).toBeNull()
  })
})

describe('summarizeStderr', () => {
  it('picks the error line of a Node crash, not the stack or the version banner', () => {
    const tail = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module 'x'",
      'Require stack:',
      '- /tmp/[eval]',
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      '    at Module._load (node:internal/modules/cjs/loader:1051:27) {',
      "  code: 'MODULE_NOT_FOUND',",
      '}',
      '',
      'Node.js v20.20.2',
    ]
    expect(summarizeStderr(tail)).toBe("Error: Cannot find module 'x'")
  })

  it("names the file of an fs error, not the error's property dump after the stack", () => {
    const tail = [
      'node:fs:448',
      '    return binding.readFileUtf8(path, stringToFlags(options.flag));',
      '                   ^',
      '',
      "Error: ENOENT: no such file or directory, open '/home/me/.config/myapp/settings.json'",
      '    at Object.readFileSync (node:fs:448:20)',
      '    at async ModuleLoader.import (node:internal/modules/esm/loader:606:24) {',
      '  errno: -2,',
      "  code: 'ENOENT',",
      "  syscall: 'open',",
      "  path: '/home/me/.config/myapp/settings.json'",
      '}',
      '',
      'Node.js v20.20.2',
    ]
    expect(summarizeStderr(tail)).toBe("Error: ENOENT: no such file or directory, open '/home/me/.config/myapp/settings.json'")
    // a server's own indented lines after an unrelated "{" line are still read
    expect(summarizeStderr(['config {', '  error: port taken', '}'])).toBe('error: port taken')
  })

  it('falls back to the last line, or null when there is nothing', () => {
    expect(summarizeStderr(['starting', 'listening on 3000'])).toBe('listening on 3000')
    expect(summarizeStderr([])).toBeNull()
  })
})
