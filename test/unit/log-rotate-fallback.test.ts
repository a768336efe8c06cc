// The log file stays bounded when it cannot be moved aside (src/main/core/log.ts). Past its size
// logs/toolgate.log is moved to toolgate.log.1; where that move fails (here toolgate.log.1 is a
// folder with a file in it, so rename(2) refuses), the file used to be written on without a limit.
// Now it is emptied in place with a line saying why, and what was in the way is left alone.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/main/core/log'
import { cleanupTemp, tempDir } from '../helpers/cli'

const MAX = 20_000
const before = process.env.TOOLGATE_LOG_MAX_BYTES

afterEach(() => {
  if (before === undefined) delete process.env.TOOLGATE_LOG_MAX_BYTES
  else process.env.TOOLGATE_LOG_MAX_BYTES = before
})
afterAll(cleanupTemp)

describe('the log file when toolgate.log.1 cannot be replaced', () => {
  it('is emptied in place instead of growing past its size, says why, and leaves toolgate.log.1 alone', () => {
    const dataDir = tempDir('toolgate-log-rotate-')
    const logs = path.join(dataDir, 'logs')
    const blocker = path.join(logs, 'toolgate.log.1')
    fs.mkdirSync(blocker, { recursive: true })
    fs.writeFileSync(path.join(blocker, 'keep.txt'), 'not the log\n')
    process.env.TOOLGATE_LOG_MAX_BYTES = String(MAX)
    const log = createLogger({ dataDir, stderr: false })
    const file = path.join(logs, 'toolgate.log')
    const filler = 'x'.repeat(1000)
    let biggest = 0
    // 300 lines of ~1.1 kB: fifteen times the limit
    for (let i = 0; i < 300; i++) {
      log.info({ i }, filler)
      biggest = Math.max(biggest, fs.statSync(file).size)
    }
    // at most the limit and the line that crossed it
    expect(biggest).toBeGreaterThan(MAX / 2)
    expect(biggest).toBeLessThanOrEqual(MAX + 1200)
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('could not be moved to toolgate.log.1')
    // the newest lines are there, and every line is one JSON value
    expect(text).toContain('"i":299')
    for (const l of text.trim().split('\n')) expect(() => JSON.parse(l)).not.toThrow()
    expect(fs.readFileSync(path.join(blocker, 'keep.txt'), 'utf8')).toBe('not the log\n')
  })
})
