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
 * the cache lives in the data dir this start uses (`<data-dir>/compile-cache`: --data-dir, else
 * $TOOLGATE_DATA_DIR, else ~/.toolgate), a folder every sandboxed server of that data dir has
 * hidden (sandbox/hidden.ts) and whose config already decides what runs; private to this user,
 * and used only when it is this user's and nobody else may write it or the data dir. A data dir
 * that was named and does not exist yet is not created here (the CLI asks first: new-paths.ts):
 * that start runs without the cache. Only the current Node and build's cache is kept
 * (currentCache). $TOOLGATE_COMPILE_CACHE_DIR names another folder for it;
 * NODE_DISABLE_COMPILE_CACHE=1 switches it off.
 */
function enableCompileCache() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return
  const nodeModule = require('node:module')
  const native = typeof nodeModule.enableCompileCache === 'function'
  const root = cacheRoot()
  if (!root) return
  const dir = currentCache(root)
  if (!dir) return
  if (native) nodeModule.enableCompileCache(dir)
  else codeCache(nodeModule, dir)
}

/**
 * `<data-dir>/compile-cache`, or $TOOLGATE_COMPILE_CACHE_DIR (a folder of its own: a data dir that
 * is synced or on a network share, the benches' fresh data dirs); created private, or null.
 */
function cacheRoot() {
  const named = process.env.TOOLGATE_COMPILE_CACHE_DIR
  if (named) return privateDir(path.dirname(path.resolve(named)), path.basename(path.resolve(named)))
  const where = dataDirOf(process.argv.slice(2))
  if (where.named && !isDir(where.dir)) return null
  return privateDir(where.dir, 'compile-cache')
}

/**
 * The data dir as the CLI resolves it (paths.ts resolveDataDir): the last --data-dir before a
 * `--` (after it, the words are another program's), else $TOOLGATE_DATA_DIR, else ~/.toolgate.
 * `named`: given by the flag or the variable.
 */
function dataDirOf(args) {
  let flag
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '--') break
    if (a === '--data-dir' && i + 1 < args.length) flag = args[++i]
    else if (a.startsWith('--data-dir=')) flag = a.slice('--data-dir='.length)
  }
  const named = flag !== undefined ? flag : process.env.TOOLGATE_DATA_DIR
  return named !== undefined ? { dir: path.resolve(named), named: true } : { dir: path.join(os.homedir(), '.toolgate'), named: false }
}

function isDir(p) {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

/**
 * A cache folder's name: this launcher's (`v20.19.5-x64-<16 hex>`), Node's own
 * (`v22.23.3-x64-<8 hex>-<uid>`), the launcher's before (`v8-<version>`).
 */
const CACHE_NAME = /^(v\d+\.\d+\.\d+-\w+-[0-9a-f]{8,16}(-\d+)?|v8-[\w.-]+)$/

/**
 * The one folder in `root` for this Node (version, architecture) and this build of out/main (the
 * names, sizes and times of its files), created private; every other cache folder of `root` is
 * removed: the caches of another Node or an earlier build (and the layout before this one:
 * `v8-<version>`, Node's own folder at the top) would otherwise stay forever. Only folders named
 * like a cache go (CACHE_NAME; a $TOOLGATE_COMPILE_CACHE_DIR may be a folder with other things in
 * it). Two builds that share a data dir replace each other's cache.
 */
function currentCache(root) {
  const crypto = require('node:crypto')
  const out = path.join(__dirname, '..', 'out', 'main')
  const build = crypto.createHash('sha256').update(out)
  try {
    for (const e of fs.readdirSync(out, { recursive: true }).sort()) {
      const st = fs.statSync(path.join(out, e))
      if (st.isFile()) build.update('\0' + e + '\0' + st.size + '\0' + st.mtimeMs)
    }
  } catch {
    return null
  }
  const name = (process.version + '-' + process.arch + '-' + build.digest('hex').slice(0, 16)).replace(/[^\w.-]/g, '_')
  const dir = privateDir(root, name)
  if (!dir) return null
  try {
    for (const e of fs.readdirSync(root, { withFileTypes: true }))
      if (e.name !== name && e.isDirectory() && CACHE_NAME.test(e.name)) fs.rmSync(path.join(root, e.name), { recursive: true, force: true })
  } catch {
    // a file in use elsewhere: the next start tries again
  }
  return dir
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
  // however the build prints it (with or without spaces, any quotes): the one `import()` that Node 20 never runs
  return content.includes('import(') && content.replace(/globalThis\.crypto\s*\?\?\s*import\(\s*(["'`])node:crypto\1\s*\)/g, '').includes('import(')
}

/** The first bytes of a code cache file of this launcher (then the SHA-256 of V8's data, then the data). */
const MAGIC = Buffer.from('toolgate-v8-cache-1\n')

/** After how long a serve or stdio (long-running) writes what it compiled: its start is done by then. */
const SAVE_AFTER_MS = 15000

/**
 * Node 20: the files of out/main are compiled with V8's code cache (vm.Script cachedData), kept
 * in `dir` (currentCache), one file per role (serve, stdio, the other commands) and source:
 * named by the SHA-256 of the file's path and text, so a changed build never meets old code (V8
 * itself refuses a cache of another V8 or other flags). What was compiled is written once, when
 * there was no cache or V8 refused it: by a serve or stdio once its start is done, by other
 * commands at exit, so functions compiled lazily while running are in it too.
 */
function codeCache(nodeModule, dir) {
  const vm = require('node:vm')
  const crypto = require('node:crypto')
  const own = path.join(__dirname, '..', 'out', 'main') + path.sep
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
