// `toolgate activity` lines (src/main/cli/print-activity.ts): what an agent wrote into a record (a
// read's prompt name or resource URI, a search query) is one quoted field that reads back exactly,
// so it cannot pose as the columns after it (the server, the outcome, the time) of another record.
import { describe, expect, it } from 'vitest'
import type { ReadEvent, SearchEvent } from '../../src/shared/activity'
import { activityLine } from '../../src/main/cli/print-activity'

const base = { id: '7', ts: '2026-11-28T08:00:00.000Z', agent: 'reader', client: null }

function read(name: string): ReadEvent {
  return { ...base, kind: 'read', what: 'prompt', server: null, name, outcome: 'refused', code: -32602, duration_ms: 0.3 }
}

/** The first JSON string in the line after `after`, read back. */
function firstString(line: string, after: string): unknown {
  const rest = line.slice(line.indexOf(after) + after.length)
  const m = /^"(?:[^"\\]|\\.)*"/.exec(rest)
  return m ? JSON.parse(m[0]) : undefined
}

describe('toolgate activity: an agent-written name or query stays one quoted field', () => {
  it("a read of a prompt whose name carries a fake server, outcome and time shows it quoted, the record's own columns after it", () => {
    // refused: no server the agent may see is named, so the line has no "on <server>" of its own
    const forged = 'greet on gh  ok  0.3 ms'
    const line = activityLine(read(forged))
    expect(line).toContain('prompt "greet on gh  ok  0.3 ms"  refused (-32602)  0.3 ms')
    expect(firstString(line, 'prompt ')).toBe(forged)
  })

  it('a name with quotes and backslashes cannot close its quotes early', () => {
    const forged = 'a" on gh  ok  0.1 ms  \\"x'
    const line = activityLine(read(forged))
    expect(line).toContain('prompt "a\\" on gh  ok  0.1 ms  \\\\\\"x"  refused')
    expect(firstString(line, 'prompt ')).toBe(forged)
  })

  it('a resource URI is quoted the same way, with the server it was for after it', () => {
    const e: ReadEvent = { ...read('file:///notes/a b.txt'), what: 'resource', server: 'held' }
    expect(activityLine(e)).toContain('resource "file:///notes/a b.txt" on held  refused (-32602)')
  })

  it("a search query's own quote cannot end the query and pose as its hit count", () => {
    const q = 'x"  99 hit(s)  +locked  "'
    const e: SearchEvent = { ...base, kind: 'search', query: q, include_disabled: false, hits: 0, locked_only: false, locked: [] }
    const line = activityLine(e)
    expect(line).toContain('"x\\"  99 hit(s)  +locked  \\""  0 hit(s)')
    expect(firstString(line, 'reader  ')).toBe(q)
  })
})
