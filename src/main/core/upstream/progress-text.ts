// An upstream's notifications/progress as the calling agent gets it: its number, its total, and
// its message on one line, escaped (control, bidi and invisible characters and line breaks as \u
// escapes) and cut. The message is shown by the agent's client as the call's status, beside
// nothing that names the server: a raw one could clear a terminal client's screen, reorder what it
// shows, or print lines posing as Toolgate's own. Every other key the server put in it is dropped.
import type { Progress } from '@modelcontextprotocol/client'
import { escapeControls } from '../../../shared/text'

/** The longest progress message an agent gets (characters, once escaped). */
export const MAX_PROGRESS_MESSAGE_CHARS = 500

export function progressOf(p: Progress): Progress {
  const out: Progress = { progress: p.progress }
  if (typeof p.total === 'number') out.total = p.total
  if (typeof p.message === 'string') {
    const text = escapeControls(p.message)
    out.message = text.length > MAX_PROGRESS_MESSAGE_CHARS ? `${text.slice(0, MAX_PROGRESS_MESSAGE_CHARS - 1)}…` : text
  }
  return out
}
