#!/usr/bin/env node
'use strict'
// Thin launcher: the CLI is built by `npm run build` into out/main/cli.js.
const path = require('node:path')
const fs = require('node:fs')
const os = require('node:os')
const cli = path.join(__dirname, '..', 'out', 'main', 'cli.js')
if (!fs.existsSync(cli)) {
  process.stderr.write('toolgate: the CLI is not built yet. Run `npm run build` in ' + path.dirname(__dirname) + ' first.\n')
  process.exit(2)
}

/**
 * Node 22.1+ keeps V8's compiled code of the modules it loads between runs (module.enableCompileCache):
 * most of what a start costs Toolgate is compiling its JavaScript (perf: over half of its CPU until
 * every server is callable), and the cache takes about an eighth off it (docs/performance.md). Compiled code is
 * code, so the cache lives where no upstream server can write: `~/.toolgate/compile-cache`, a
 * folder every sandboxed server has hidden (sandbox/hidden.ts), private to this user, and used only
 * when it is this user's and nobody else may write it or its parent. Node 20 has no such cache
 * (nothing happens); NODE_DISABLE_COMPILE_CACHE=1 switches it off.
 */
function enableCompileCache() {
  const nodeModule = require('node:module')
  if (typeof nodeModule.enableCompileCache !== 'function' || process.env.NODE_DISABLE_COMPILE_CACHE) return
  try {
    const parent = path.join(os.homedir(), '.toolgate')
    const dir = path.join(parent, 'compile-cache')
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const uid = typeof process.getuid === 'function' ? process.getuid() : null
    // a real folder of this user that no one else may write (`closed`: nor read)
    const ours = (p, closed) => {
      const st = fs.lstatSync(p)
      return st.isDirectory() && (uid === null || (st.uid === uid && (st.mode & closed) === 0))
    }
    if (ours(parent, 0o022) && ours(dir, 0o077)) nodeModule.enableCompileCache(dir)
  } catch {
    // no home, a read-only one: start without the cache
  }
}
enableCompileCache()
require(cli)
