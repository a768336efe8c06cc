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
 * V8's compiled code of Toolgate's own modules is kept between runs: most of what a start costs
 * Toolgate is compiling its JavaScript (perf: over a third of its main thread until every server
 * is callable), and a start that finds its code compiled spends a quarter less CPU
 * (docs/performance.md). Node 22.1+ does it itself (module.enableCompileCache); on Node 20 the
 * launcher does it for the files of out/main only (codeCache below). Compiled code is code, so
 * the cache lives where no upstream server can write: `~/.toolgate/compile-cache`, a folder every
 * sandboxed server has hidden (sandbox/hidden.ts), private to this user, and used only when it is
 * this user's and nobody else may write it or its parent. NODE_DISABLE_COMPILE_CACHE=1 switches
 * it off.
 */
function enableCompileCache() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return
  const nodeModule = require('node:module')
  const native = typeof nodeModule.enableCompileCache === 'function'
  const dir = privateDir(path.join(os.homedir(), '.toolgate'), 'compile-cache')
  if (!dir) return
  if (native) nodeModule.enableCompileCache(dir)
  else codeCache(nodeModule, dir)
}

/** `parent/name`, created 0700, when it and its parent are real folders of this user that no one else may write; else null. */
function privateDir(parent, name) {
  try {
    const dir = path.join(parent, name)
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const uid = typeof process.getuid === 'function' ? process.getuid() : null
    // a real folder of this user that no one else may write (`closed`: nor read)
    const ours = (p, closed) => {
      const st = fs.lstatSync(p)
      return st.isDirectory() && (uid === null || (st.uid === uid && (st.mode & closed) === 0))
    }
    return ours(parent, 0o022) && ours(dir, 0o077) ? dir : null
  } catch {
    // no home, a read-only one: start without the cache
    return null
  }
}

/**
 * Whether a module's text has an import(): a script compiled by vm cannot import() on Node 20 (and
 * not at all once read from a cache), so such a file is compiled as usual. The MCP SDK's one, the
 * Web Crypto fallback behind `globalThis.crypto ??`, never runs on Node 20+.
 */
function imports(content) {
  return content.includes('import(') && content.replaceAll('globalThis.crypto ?? import("node:crypto")', '').includes('import(')
}

/** The first bytes of a code cache file of this launcher (then the SHA-256 of V8's data, then the data). */
const MAGIC = Buffer.from('toolgate-v8-cache-1\n')

/** After how long a serve or stdio (long-running) writes what it compiled: its start is done by then. */
const SAVE_AFTER_MS = 15000

/**
 * Node 20: the files of out/main are compiled with V8's code cache (vm.Script cachedData), kept
 * in `<dir>/v8-<version>/`, one file per role (serve, stdio, the other commands) and source:
 * named by the SHA-256 of the file's path and text, so a changed build never meets old code (V8
 * itself refuses a cache of another V8 or other flags). What was compiled is written once, when
 * there was no cache or V8 refused it: by a serve or stdio once its start is done, by other
 * commands at exit, so functions compiled lazily while running are in it too.
 */
function codeCache(nodeModule, root) {
  const vm = require('node:vm')
  const crypto = require('node:crypto')
  const own = path.join(__dirname, '..', 'out', 'main') + path.sep
  const dir = privateDir(root, 'v8-' + process.versions.v8.replace(/[^\w.-]/g, '_'))
  if (!dir) return
  const command = process.argv.slice(2).find((a) => !a.startsWith('-'))
  const role = command === 'serve' || command === 'stdio' ? command : 'cli'
  const fresh = []
  const compile = nodeModule.prototype._compile
  nodeModule.prototype._compile = function (content, filename, format) {
    if (typeof filename !== 'string' || !filename.startsWith(own) || !filename.endsWith('.js') || format === 'module' || imports(content)) {
      return compile.apply(this, arguments)
    }
    const digest = crypto.createHash('sha256').update(filename).update('\0').update(content).digest('hex')
    const file = path.join(dir, role + '-' + digest.slice(0, 40))
    let cachedData
    try {
      cachedData = checked(fs.readFileSync(file))
    } catch {
      // not cached yet
    }
    const script = new vm.Script(nodeModule.wrap(content), { filename, cachedData })
    if (cachedData === undefined || script.cachedDataRejected) {
      if (fresh.push({ script, file }) === 1) {
        if (role !== 'cli') setTimeout(save, SAVE_AFTER_MS).unref()
        process.once('exit', save)
      }
    }
    const wrapper = script.runInThisContext({ displayErrors: true })
    return wrapper.call(this.exports, this.exports, nodeModule.createRequire(filename), this, filename, path.dirname(filename))
  }
  /**
   * The compiled code of a cache file, or undefined when the file is not whole. V8 on Node 20 checks
   * only its header (version, flags, source length): compiled code damaged past it (a bad disk block)
   * made V8 abort the start, every start until the file was deleted. So a file is the SHA-256 of
   * what V8 wrote, then that; one that does not match is compiled anew and replaced, like a refused one.
   */
  const checked = (file) => {
    const data = file.subarray(MAGIC.length + 32)
    if (file.length <= MAGIC.length + 32 || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
    const sum = crypto.createHash('sha256').update(data).digest()
    return sum.equals(file.subarray(MAGIC.length, MAGIC.length + 32)) ? data : undefined
  }
  let saved = false
  const save = () => {
    if (saved) return
    saved = true
    for (const { script, file } of fresh) {
      const tmp = file + '.' + process.pid + '.tmp'
      try {
        const data = script.createCachedData()
        fs.writeFileSync(tmp, Buffer.concat([MAGIC, crypto.createHash('sha256').update(data).digest(), data]), { mode: 0o600, flag: 'wx' })
        fs.renameSync(tmp, file)
      } catch {
        try {
          fs.rmSync(tmp, { force: true })
        } catch {
          // a full disk, a folder gone: the next start compiles as usual
        }
      }
    }
  }
}
enableCompileCache()
require(cli)
