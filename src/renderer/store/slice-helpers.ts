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
