// Helpers of the end-to-end scripts (package.mjs, dist-payload.mjs): a step runner that counts, polling, stopping a child.
import path from 'node:path'

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..')

// a closed stdout (e.g. `| head`) must not kill the run before it cleans up
process.stdout.on('error', () => undefined)

export const results = []
export async function step(name, fn) {
  const t0 = Date.now()
  try {
    await fn()
    results.push({ name, ok: true })
    console.log(`ok - ${name} (${Date.now() - t0} ms)`)
  } catch (err) {
    results.push({ name, ok: false })
    console.log(
      `not ok - ${name}\n    ${String(err?.stack ?? err)
        .split('\n')
        .slice(0, 6)
        .join('\n    ')}`,
    )
  }
}
export function finish(code) {
  const passed = results.filter((r) => r.ok).length
  const failed = results.length - passed
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(code ?? (failed ? 1 : 0))
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
export async function until(what, fn, timeout = 15_000) {
  const end = Date.now() + timeout
  let last
  for (;;) {
    try {
      const v = await fn()
      if (v) return v
    } catch (err) {
      last = err
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`)
    await sleep(100)
  }
}

export function stopChild(child) {
  if (child.exitCode !== null || child.signalCode) return Promise.resolve()
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(t)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
