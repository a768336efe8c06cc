// A running server keeps its launch (the transport holds its cleanup until the process is gone),
// so a launch must not keep the run of plans it was built in: that run's PlanFacts holds every
// answer of the run (≈ 40 KB), and at 50 servers the 13 runs of a start held ≈ 0.5 MB of the heap
// at rest (issue 29). Checked with the real GC: the run's facts are collected while the launch lives.
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchSpec, type LaunchSpec } from '../../src/main/core/upstream/sandbox/launch'
import { PlanFacts, planFacts, sharePlanFacts } from '../../src/main/core/upstream/sandbox/plan-facts'
import { sandboxSupport } from '../../src/main/core/upstream/sandbox/detect'
import type { ServerConfig } from '../../src/shared/config-schema'

v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void

/** Two full collections after the current job (a WeakRef's target is kept until the job ends). */
async function collect(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  gc()
}

let root: string
let home: string
let dataDir: string

beforeAll(() => {
  // not under the temp dirs: those are private in the view
  root = fs.mkdtempSync(path.join(process.cwd(), '.tmp-launch-retains-'))
  home = path.join(root, 'home')
  dataDir = path.join(root, 'data')
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true })
  fs.writeFileSync(path.join(home, '.ssh/id_ed25519'), 'key')
  fs.writeFileSync(path.join(home, '.netrc'), 'machine a password b')
  fs.mkdirSync(dataDir, { recursive: true })
  fs.writeFileSync(path.join(dataDir, 'mcp_config.json'), '{}')
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe('a sandboxed launch and the run of plans it was built in', () => {
  it.runIf(sandboxSupport().available)('the run’s PlanFacts is collected while the launch is held', async () => {
    const ctx = { dataDir, configPath: path.join(dataDir, 'mcp_config.json') }
    const env = { PATH: process.env.PATH ?? '', HOME: home }
    const configs = [
      { name: 'plain', enabled: true, command: process.execPath, args: ['-e', '0'] },
      { name: 'net', enabled: true, command: process.execPath, args: ['-e', '0'], sandbox: { network: true } },
    ] as Array<ServerConfig & { command: string }>
    let run: WeakRef<PlanFacts> | null = null
    const specs: LaunchSpec[] = sharePlanFacts(() => {
      run = new WeakRef(planFacts())
      return configs.map((c) => launchSpec(c, env, { ctx, mode: 'run' }))
    })
    expect(specs.map((s) => s.mechanism)).toEqual(['bwrap', 'bwrap'])
    // the GC does collect here: facts held by a closure stay, facts nobody holds go
    const heldFacts = new PlanFacts()
    const holder = (): PlanFacts => heldFacts
    const held = new WeakRef(heldFacts)
    let dropped: WeakRef<PlanFacts> | null = new WeakRef(new PlanFacts())
    await collect()
    expect(held.deref()).toBe(holder())
    expect(dropped.deref()).toBeUndefined()
    dropped = null
    expect(run).not.toBeNull()
    expect(run!.deref()).toBeUndefined()
    // the launches were alive all along (their cleanup is what a transport keeps)
    for (const s of specs) s.cleanup()
  })
})
