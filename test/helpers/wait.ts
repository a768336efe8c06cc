// Wait until something is true, instead of sleeping a fixed time.

/**
 * Poll `predicate` until it returns a truthy value (which is returned) or `timeoutMs` passes
 * (rejects with `what` in the message). Exceptions from the predicate count as "not yet".
 */
export async function waitFor<T>(predicate: () => T | Promise<T>, timeoutMs = 5000, what = 'condition', intervalMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const value = await predicate()
      if (value) return value as NonNullable<T>
    } catch (err) {
      lastError = err
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : ''
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`)
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/** True while a process with this pid exists (zombies included: they are not reaped yet). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}
