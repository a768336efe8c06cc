// A value built on its first use, then kept: schemas a running Toolgate may never need (the control operations' arguments, the API events) are not built at load (docs/performance.md, memory).

/** `build` runs once, at the first call of the returned function; every call answers what it built. */
export function lazy<T>(build: () => T): () => T {
  let built = false
  let value: T | undefined
  return () => {
    if (!built) {
      value = build()
      built = true
    }
    return value as T
  }
}
