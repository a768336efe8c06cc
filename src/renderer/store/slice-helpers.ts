// What every slice of the store shares (its own file, so the slices need not import the store that
// composes them): the text of an error, and the key under which an action is marked busy.

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}

export function busyKey(...parts: string[]): string {
  return parts.join('\u0000')
}
