// Small helpers shared by the benchmark scripts: paths, timing, percentiles, tables, temp dirs,
// and a registry of the child processes a benchmark started (so it kills exactly those).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { createHash } from 'node:crypto'

export const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const ROOT = path.resolve(BENCH, '..')
export const REFERENCE = path.join(ROOT, 'test/fixtures') // the independent fixture server, raw client, scorer and datasets
export const FIXTURE = path.join(REFERENCE, 'bench/fixture-server.mjs')
export const TOOLGATE_BIN = path.join(ROOT, 'bin/toolgate.js')
export const requireRoot = createRequire(path.join(ROOT, 'package.json'))

/**
 * Where the toolgate processes of the build at `root` keep V8's compiled code in a bench
 * ($TOOLGATE_COMPILE_CACHE_DIR): the launcher keeps it in the data dir, and each bench start has a
 * fresh one, so without this every start would compile everything, unlike a user's. One folder per
 * build (the launcher keeps only the current build's in a folder), kept across runs.
 */
export function benchCompileCache(root = ROOT) {
  return path.join(os.homedir(), '.toolgate', 'bench-compile-cache', createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 12))
}

export const now = () => performance.now()
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Nearest-rank percentile of a numeric array (sorted copy). */
export function percentile(values, p) {
  if (!values.length) return NaN
  const s = Float64Array.from(values).sort()
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
export function stats(values) {
  const s = Float64Array.from(values).sort()
  const at = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
  return { n: s.length, p50: at(50), p95: at(95), p99: at(99), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / (s.length || 1) }
}
export const median = (values) => percentile(values, 50)

export const ms = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits ?? (x < 1 ? 3 : x < 10 ? 2 : 1)) : 'n/a')
export const mb = (bytes) => (bytes / 1048576).toFixed(1)

/** Prints a labeled plain-text table (and returns it as a markdown table for the docs). */
export function table(title, headers, rows) {
  const cells = rows.map((r) => r.map((c) => String(c)))
  const width = headers.map((h, i) => Math.max(String(h).length, ...cells.map((r) => (r[i] ?? '').length)))
  const line = (r) => r.map((c, i) => String(c).padEnd(width[i])).join('  ')
  console.log(`\n${title}`)
  console.log(line(headers))
  console.log(width.map((w) => '-'.repeat(w)).join('  '))
  for (const r of cells) console.log(line(r))
  return [`**${title}**`, '', `| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...cells.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

/** Target check text printed next to a number: "ok" / "MISS". */
export const verdict = (value, limit) => (Number.isFinite(value) ? (value <= limit ? 'ok' : 'MISS') : 'n/a')

const tmpDirs = []
export function tmpDir(prefix = 'toolgate-bench-') {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  tmpDirs.push(d)
  return d
}
export function removeTmpDirs() {
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
}

/** Every child process a benchmark started: {pid, child, label}. Killed by pid, never by name. */
export const started = new Map()
export function track(child, label) {
  started.set(child.pid, { child, label })
  child.once('exit', () => started.delete(child.pid))
  return child
}
/** SIGTERM the given tracked process (and wait), SIGKILL after `graceMs`. */
export async function stopProcess(child, graceMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  try {
    child.kill('SIGTERM')
  } catch {}
  const t = setTimeout(() => {
    try {
      child.kill('SIGKILL')
    } catch {}
  }, graceMs)
  await exited
  clearTimeout(t)
}
export async function stopAll() {
  await Promise.all([...started.values()].map(({ child }) => stopProcess(child)))
}

/** VmRSS of a pid in bytes (Linux /proc), or NaN. */
export function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : NaN
  } catch {
    return NaN
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.unref()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

export async function waitFor(what, fn, timeoutMs = 120000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs
  let last
  for (;;) {
    try {
      const v = await fn()
      if (v) return v
      last = v
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${last instanceof Error ? last.message : JSON.stringify(last)?.slice(0, 300)})`)
    await sleep(everyMs)
  }
}

export const machine = () =>
  `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), ${mb(os.totalmem())} MB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`

/**
 * The machine's noise floor: a fixed CPU-only task of ~`workMs` timed `n` times. On an idle machine
 * its p99 ≈ its p50; on a shared one (other processes on the same cores) p99 grows, and so does
 * every tail latency measured at the same time. Printed beside the figures so tails can be judged.
 */
export function noiseFloor({ n = 1500, workMs = 0.3 } = {}) {
  let x = 0
  const work = (iters) => {
    for (let i = 0; i < iters; i++) x = (x * 1103515245 + 12345) % 2147483648
    return x
  }
  let iters = 1000
  for (;;) {
    // calibrate: best of 5
    let best = Infinity
    for (let k = 0; k < 5; k++) {
      const t = now()
      work(iters)
      best = Math.min(best, now() - t)
    }
    if (best >= workMs) break
    iters = Math.ceil(iters * Math.max(1.2, workMs / Math.max(best, 1e-3)))
  }
  const lat = []
  for (let i = 0; i < n; i++) {
    const t = now()
    work(iters)
    lat.push(now() - t)
  }
  const s = stats(lat)
  return { p50: s.p50, p99: s.p99, max: s.max, ratio: s.p99 / s.p50, sink: x }
}
export const noiseText = (f) =>
  `noise floor: a fixed ${f.p50.toFixed(2)} ms CPU task measured p99 ${f.p99.toFixed(2)} ms (×${f.ratio.toFixed(1)}), max ${f.max.toFixed(1)} ms`

/** CPU of every thread of `pid` so far (or of its JavaScript thread alone), ms: schedstat's nanoseconds on CPU. */
export function threadCpuMs(pid, mainOnly = false) {
  const of = (task) => Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
  if (mainOnly) return of(pid) / 1e6
  let ns = 0
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += of(task)
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6
}

/** `--baseline DIR` of an A/B bench: a built checkout of the other commit, or exit 2 saying what is missing. */
export function requireBaseline(dir) {
  if (!dir || !fs.existsSync(path.join(dir, 'out/main/cli.js'))) {
    console.error('--baseline DIR: a built checkout of the other commit (DIR/out/main/cli.js is missing)')
    process.exit(2)
  }
  return dir
}

/** CPU time (user + system) a process has used so far, in ms (from /proc/<pid>/stat; 10 ms ticks). */
export function cpuMsOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100 // utime, stime at CLK_TCK 100
  } catch {
    return NaN
  }
}
