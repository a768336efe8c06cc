// `toolgate activity` for people: one line per record, oldest first, with every control
// character escaped (agents write queries, tool names, client names and arguments: an ESC or OSC
// sequence must never reach the terminal), and bidi or invisible characters shown as \u escapes.
// A query and a read's prompt name or URI are quoted as JSON strings.
import { actorOf, type ActivityEvent } from '../../shared/activity'
import { escapeControls } from '../../shared/text'

function time(ts: string): string {
  const d = new Date(ts)
  if (Number.isNaN(d.getTime())) return ts
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}

function who(e: ActivityEvent): string {
  if (e.kind === 'decision' && e.by !== 'agent') return `${e.by} via ${e.via}`
  const name = actorOf(e)
  return e.agent !== null && e.client ? `${name} (${e.client})` : name
}

function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`
}

/**
 * Text an agent wrote (a query, a prompt's name, a resource's URI) as one JSON string: quoted, its
 * quotes and backslashes escaped, so it cannot pose as the columns that follow it (a server, an
 * outcome, a time) and reads back exactly as sent.
 */
function quoted(s: string): string {
  return JSON.stringify(s)
}

/** One line (no newline) describing a record. */
export function activityLine(e: ActivityEvent): string {
  const head = `${time(e.ts)}  ${e.kind.padEnd(8)}  ${who(e)}`
  let rest: string
  switch (e.kind) {
    case 'search':
      rest = `${quoted(e.query)}  ${e.hits} hit(s)${e.locked_only ? `  only locked: ${e.locked.join(', ') || '(some)'}` : ''}${e.include_disabled ? '  +locked' : ''}`
      break
    case 'call':
      rest = `${e.tool}  ${e.outcome}${e.status ? ` (${e.status})` : ''}  ${e.duration_ms.toFixed(1)} ms${e.result_bytes !== undefined ? `  ${bytes(e.result_bytes)}` : ''}${e.error ? `  ${e.error.split('\n')[0]}` : ''}`
      break
    case 'decision':
      rest = `${e.action} ${e.server}${e.tool ? `:${e.tool}` : ''}  ${e.message}${e.args_hmac ? `  (arguments HMAC ${e.args_hmac})` : ''}`
      break
    case 'start':
    case 'stop':
      rest = `${e.server} (${e.reason})  ${e.message}`
      break
    case 'read':
      rest = `${e.what} ${quoted(e.name)}${e.server !== null ? ` on ${e.server}` : ''}  ${e.outcome}${e.code !== undefined ? ` (${e.code})` : ''}  ${e.duration_ms.toFixed(1)} ms${e.error ? `  ${e.error.split('\n')[0]}` : ''}`
      break
  }
  return escapeControls(`${head}  ${rest}`)
}
