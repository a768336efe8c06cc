// Section "flood": what a burst of list_changed notifications costs (issue 27 point 4). A real
// `toolgate serve` with two flood upstreams (test/fixtures/servers/flood-server.mjs), one speaking
// 2025 (plain notifications) and one 2026-07-28 (its subscriptions/listen stream); each sends
// `count` tools/list_changed and `count` prompts/list_changed over `overMs`. Counted by the
// upstreams themselves: the tools/list, prompts/list and prompts/get they were asked for; measured:
// the CPU time of the serve process from the first notification until everything settled.
// Target: at most one re-list per server and kind per second (plus the one at the start).
import fs from 'node:fs'
import path from 'node:path'
import { tmpDir, freePort, sleep, cpuMsOf, waitFor, REFERENCE } from './util.mjs'
import { startServe, stopToolgate, httpClient, jsonOf, control, BENCH_KEY } from './procs.mjs'

const FLOOD = path.join(REFERENCE, 'servers/flood-server.mjs')
const log = (...a) => process.stderr.write(`  [flood] ${a.join(' ')}\n`)

async function counts(client, server) {
  const r = await client.callTool('call_tool_read', { name: `${server}:counts`, args: {} })
  return JSON.parse(r.content[0].text)
}

/** One run: both upstreams flood at once; returns per-server counts and the serve's CPU ms. */
export async function floodRun({ count = 200, overMs = 8000, tools = 30, prompts = 5 } = {}) {
  const dir = tmpDir('toolgate-bench-flood-')
  const entry = (legacy) => ({
    command: process.execPath,
    args: [FLOOD, ...(legacy ? ['--legacy'] : [])],
    env: { FLOOD_TOOLS: String(tools), FLOOD_PROMPTS: String(prompts) },
    quarantined: false,
  })
  const config = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { old: entry(true), new: entry(false) } }, null, 2))
  const dataDir = path.join(dir, 'data')
  const port = await freePort()
  const child = startServe({ config, dataDir, port, logFile: path.join(dir, 'serve.log'), memFile: path.join(dir, 'mem.json') })
  const url = `http://127.0.0.1:${port}`
  try {
    await waitFor(
      'both flood upstreams callable',
      async () => {
        const st = await control(url, '/api/v1/status').catch(() => null)
        return st?.servers?.connected === 2 && st.tools.callable === 2 * (tools + 2)
      },
      60000,
      100,
    )
    const client = await httpClient(`${url}/mcp`, 'bench-flood')
    const before = { old: await counts(client, 'old'), new: await counts(client, 'new') }
    await sleep(500)
    const cpu0 = cpuMsOf(child.pid)
    const t0 = performance.now()
    // count 0: the same time with no notification (what the process costs anyway, for comparison)
    if (count === 0) await sleep(overMs)
    else
      for (const s of ['old', 'new'])
        await client.callTool('call_tool_read', { name: `${s}:flood`, args: { count, over_ms: overMs, kinds: ['tools', 'prompts'] } })
    await waitFor('the floods to end', async () => !(await counts(client, 'old')).flooding && !(await counts(client, 'new')).flooding, overMs + 30000, 200)
    // let the last coalesced re-lists run, then wait until nothing more is asked for
    let last = null
    await waitFor(
      'the re-lists to stop',
      async () => {
        const now = JSON.stringify([await counts(client, 'old'), await counts(client, 'new')])
        const same = now === last
        last = now
        return same
      },
      30000,
      1500,
    )
    const wallMs = performance.now() - t0
    const cpuMs = cpuMsOf(child.pid) - cpu0
    const after = { old: await counts(client, 'old'), new: await counts(client, 'new') }
    await client.close()
    const delta = (s) => ({
      sent: after[s].sent - before[s].sent,
      tools_list: after[s].tools_list - before[s].tools_list,
      prompts_list: after[s].prompts_list - before[s].prompts_list,
      prompts_get: after[s].prompts_get - before[s].prompts_get,
    })
    return { count, overMs, wallMs, cpuMs, old: delta('old'), new: delta('new') }
  } finally {
    await stopToolgate(child)
    void BENCH_KEY
    void jsonOf
  }
}

/** The section: the flood and the same time idle, printed; target ≤ 1 re-list per server and kind per second (+2). */
export async function floodSection({ count = 200, overMs = 8000 } = {}) {
  log(`${count} tools/list_changed + ${count} prompts/list_changed per upstream over ${overMs} ms, a 2025 and a 2026-07-28 upstream`)
  const r = await floodRun({ count, overMs })
  log(`the same ${overMs} ms without notifications`)
  const idle = await floodRun({ count: 0, overMs })
  r.idleCpuMs = idle.cpuMs
  r.idleWallMs = idle.wallMs
  const budget = Math.ceil(r.overMs / 1000) + 2
  const rows = ['old', 'new'].map((s) => {
    const d = r[s]
    const ok = d.tools_list <= budget && d.prompts_list <= budget
    return [
      s === 'old' ? '2025 (notifications)' : '2026-07-28 (listen)',
      d.sent,
      d.tools_list,
      d.prompts_list,
      d.prompts_get,
      `≤ ${budget} each`,
      ok ? 'ok' : 'MISS',
    ]
  })
  return { ...r, budget, rows }
}
