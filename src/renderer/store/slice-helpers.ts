// What every slice of the store shares (its own file, so the slices need not import the store that
// composes them): the text of an error, the key under which an action is marked busy, and the marking.

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

export function busyKey(...parts: string[]): string {
  return parts.join('\u0000')
}

type BusyState = { busy: Record<string, boolean> }

/** Marks `key` busy (`on`) or clears it, in the store's `busy` map (one answer per double click). */
export function busyMarker(set: (fn: (s: BusyState) => BusyState) => void): (key: string, on: boolean) => void {
  return (key, on) =>
    set((s) => {
      const next = { ...s.busy }
      if (on) next[key] = true
      else delete next[key]
      return { busy: next }
    })
}

/** A store's lists kept per server (`list`) with the error of each server's last load (`errors`). */
type PerServer<L extends string, E extends string, T> = { [K in L]: Record<string, T> } & { [K in E]: Record<string, string> }

/**
 * Loads one server's list (its tools, prompts, resources) into `state[list][server]` and clears its
 * error, or keeps the list and sets `state[errors][server]` to what went wrong.
 */
export function perServerLoader<L extends string, E extends string, T>(
  set: (fn: (s: PerServer<L, E, NoInfer<T>>) => PerServer<L, E, NoInfer<T>>) => void,
  list: L,
  errors: E,
  fetch: (server: string) => Promise<T>,
): (server: string) => Promise<void> {
  return async (server) => {
    let value: T
    try {
      value = await fetch(server)
    } catch (err) {
      set((s) => ({ ...s, [errors]: { ...s[errors], [server]: messageOf(err) } }))
      return
    }
    set((s) => {
      const lastErrors = { ...s[errors] }
      delete lastErrors[server]
      return { ...s, [list]: { ...s[list], [server]: value }, [errors]: lastErrors }
    })
  }
}
