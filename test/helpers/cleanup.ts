// A test file's cleanup in one line: `useCleanup()` kills every process the file started and removes its temp dirs after its
// tests; `stopServe(serve)` stops one `toolgate serve` (for a describe's own afterAll).
import { afterAll } from 'vitest'
import { cleanupProcesses, cleanupTemp, stopProcess, type Serve } from './cli'

/**
 * Registers an afterAll in the current file (or describe) that runs `first` (closing clients, stopping a serve: what must go
 * before the kill), then (even when `first` failed) SIGKILLs every process registered with `track()` (serves and CLI runs are) with what they left
 * behind, then removes every dir made by `tempDir()`.
 */
export function useCleanup(first?: () => unknown): void {
  afterAll(async () => {
    try {
      await first?.()
    } finally {
      await cleanupProcesses()
      cleanupTemp()
    }
  })
}

/** Stops a serve if it was started (SIGTERM, then SIGKILL of its tree after 15 s); for `afterAll(() => stopServe(serve))`. */
export async function stopServe(serve: Serve | undefined): Promise<void> {
  if (serve) await stopProcess(serve.child)
}
