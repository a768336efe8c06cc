// vitest's global setup: one folder for V8's compiled code of the toolgate children of this run
// ($TOOLGATE_COMPILE_CACHE_DIR, test/helpers/cli.ts), in the temp dir, removed when the run ends.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-compile-cache-'))
  // the test workers are started after this, with this environment
  process.env.TOOLGATE_TEST_COMPILE_CACHE = dir
  return () => fs.rmSync(dir, { recursive: true, force: true })
}
