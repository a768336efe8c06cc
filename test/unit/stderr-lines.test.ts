// boundedLines (upstream/stderr-lines.ts): a stdio upstream's stderr as lines, as readline split
// them (LF, CRLF, CR; CRLF across two chunks is one end), each kept to its first characters with
// its whole length.
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { boundedLines, LineBudget, type StderrLine } from '../../src/main/core/upstream/stderr-lines'

async function lines(chunks: string[], keep: number): Promise<StderrLine[]> {
  const input = new PassThrough()
  const out: StderrLine[] = []
  boundedLines(input, keep, (l) => out.push(l))
  const ended = new Promise((resolve) => input.once('end', resolve))
  for (const c of chunks) input.write(c)
  input.end()
  await ended
  return out
}

describe('boundedLines', () => {
  it('splits on LF, CRLF and CR, also where a chunk ends between CR and LF', async () => {
    const got = await lines(['a\nb\r', '\nc\rd\r\n', 'e'], 100)
    expect(got.map((l) => l.text)).toEqual(['a', 'b', 'c', 'd', 'e'])
  })

  it('keeps the first characters of a long line and counts all of it, across chunks', async () => {
    const got = await lines(['x'.repeat(30), 'y'.repeat(30), 'z'.repeat(30), '\nnext\n'], 40)
    expect(got).toEqual([
      { text: `${'x'.repeat(30)}${'y'.repeat(10)}`, length: 90 },
      { text: 'next', length: 4 },
    ])
  })
})

describe('LineBudget', () => {
  it('lets the burst pass at once, then the rate a second', () => {
    let t = 0
    const b = new LineBudget(3, 2, () => t)
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false])
    t = 499
    expect(b.take()).toBe(false)
    t = 500
    expect([b.take(), b.take()]).toEqual([true, false])
    t = 60_000
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false])
  })
})
