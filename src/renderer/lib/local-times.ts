// The core's messages name times in ISO UTC ("until 2026-11-27T14:03:00.000Z"); a person reads
// them in their own clock (ISO times in toasts): today as "14:03", another day with its date.

const ISO_UTC = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?Z\b/g

/** One ISO time in the user's clock: the time of day, with the date when it is not today. */
export function localTime(iso: string, now = new Date()): string {
  const t = new Date(iso)
  if (Number.isNaN(t.getTime())) return iso
  const time = t.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
  if (t.toDateString() === now.toDateString()) return time
  return `${t.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' })}, ${time}`
}

/** `text` with every ISO UTC time in it written in the user's clock. */
export function localTimes(text: string, now = new Date()): string {
  return text.replace(ISO_UTC, (iso) => localTime(iso, now))
}
