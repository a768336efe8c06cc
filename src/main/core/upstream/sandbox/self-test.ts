// The sandbox's self-tests at a start: bubblewrap's (detect.ts) and pasta's around it (network.ts)
// run side by side in the background, so the ~0.1–0.3 s pasta takes to set up its namespace is
// spent while the core is built, not before the first server can start. The answers are the ones
// sandboxSupport() and networkSupport() give from then on (the same caches, the same checks).
import { bwrapBinary, sandboxSupportSoon, type SandboxSupport } from './detect'
import { networkSupportSoon, type NetworkSupport } from './network'

export interface SandboxSelfTest {
  sandbox: SandboxSupport
  /** pasta, when the sandbox is bubblewrap (null otherwise) */
  net: NetworkSupport | null
}

const running = new Map<string, Promise<SandboxSelfTest>>()

/** Both self-tests, started now or joined while running; their answers are kept for the process. */
export function probeSandbox(): Promise<SandboxSelfTest> {
  const key = `${process.env.TOOLGATE_BWRAP ?? ''}\u0000${process.env.TOOLGATE_PASTA ?? ''}`
  let run = running.get(key)
  if (!run) {
    run = (async () => {
      const b = process.platform === 'linux' ? bwrapBinary() : null
      const [sandbox, net] = await Promise.all([sandboxSupportSoon(), b && 'binary' in b ? networkSupportSoon(b.binary) : null])
      return { sandbox, net: sandbox.mechanism === 'bwrap' ? net : null }
    })().finally(() => running.delete(key))
    running.set(key, run)
  }
  return run
}
