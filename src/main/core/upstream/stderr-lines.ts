// A stdio upstream's stderr as lines, each kept to a bounded length. node:readline keeps a line
// until its line end with no limit: an upstream that wrote ~512 MB to stderr without a newline
// made it throw RangeError (Invalid string length) from a stream handler, which ended the whole
// `toolgate serve` (every server and agent) within seconds; less than that was held in memory.
// Here a line keeps its first `keep` characters and only counts the rest; LineBudget limits how
// many lines a second reach the log.
import type { Readable } from 'node:stream'

export interface StderrLine {
  /** the line's first characters (all of it when it is at most `keep` long), without its line end */
  text: string
  /** the line's whole length in characters */
  length: number
}

/** Calls `onLine` for each line of `input` (ends: LF, CRLF or CR, as readline; the last, unterminated line at the end). */
export function boundedLines(input: Readable, keep: number, onLine: (line: StderrLine) => void): void {
  let text = ''
  let length = 0
  /** the last chunk ended with CR: a LF first in the next one ends no other line */
  let afterCR = false
  const emit = (): void => {
    onLine({ text, length })
    text = ''
    length = 0
  }
  const add = (part: string): void => {
    length += part.length
    if (text.length < keep) text += part.length > keep - text.length ? part.slice(0, keep - text.length) : part
  }
  input.setEncoding('utf8')
  input.on('data', (chunk: string) => {
    let from = 0
    if (afterCR && chunk.startsWith('\n')) from = 1
    afterCR = false
    const ends = /\r\n|\n|\r/g
    ends.lastIndex = from
    for (let m = ends.exec(chunk); m !== null; m = ends.exec(chunk)) {
      add(chunk.slice(from, m.index))
      emit()
      from = m.index + m[0].length
    }
    if (chunk.endsWith('\r') && from === chunk.length) afterCR = true
    if (from < chunk.length) add(chunk.slice(from))
  })
  input.on('end', () => {
    if (length > 0) emit()
  })
  input.on('error', () => undefined)
}

/** A token bucket of lines: `burst` at once, then `perSecond`; take() says whether one more may pass. */
export class LineBudget {
  private tokens: number
  private at: number

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst
    this.at = now()
  }

  take(): boolean {
    const t = this.now()
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.at) / 1000) * this.perSecond)
    this.at = t
    if (this.tokens < 1) return false
    this.tokens--
    return true
  }
}
