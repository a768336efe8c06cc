// In-process CPU profiling of one phase (node:inspector), summarized as the top self-time
// functions. Used by `--profile`; the raw .cpuprofile can be kept for Chrome DevTools.
import fs from 'node:fs'
import inspector from 'node:inspector'

const post = (session, method, params) => new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))))

export async function profiled(fn, { keep } = {}) {
  const session = new inspector.Session()
  session.connect()
  await post(session, 'Profiler.enable')
  await post(session, 'Profiler.setSamplingInterval', { interval: 100 })
  await post(session, 'Profiler.start')
  let result
  try {
    result = await fn()
  } finally {
    const { profile } = await post(session, 'Profiler.stop')
    session.disconnect()
    if (keep) fs.writeFileSync(keep, JSON.stringify(profile))
    result = { result, top: summarize(profile) }
  }
  return result
}

/** [{fn, ms, pct}] by self time, top `n`. */
export function summarize(profile, n = 15) {
  const dt = new Map()
  for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0))
  const self = new Map()
  for (const node of profile.nodes) {
    const cf = node.callFrame
    const where = cf.url ? `${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}` : ''
    const key = `${cf.functionName || '(anonymous)'} ${where}`.trim()
    self.set(key, (self.get(key) ?? 0) + (dt.get(node.id) ?? 0))
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([fn, us]) => ({ fn, ms: us / 1000, pct: (100 * us) / total }))
}
