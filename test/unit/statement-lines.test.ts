// The main build prints its chunks without whitespace, one statement a line (scripts/statement-lines.mts): the code must
// mean the same, strings and templates must keep their text, and from the built bundle an error
// must still name its function at a line of its own.
import fs from 'node:fs'
import path from 'node:path'
import vm from 'node:vm'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { oneStatementPerLine } from '../../scripts/statement-lines.mjs'
import { assertBuilt, ROOT } from '../helpers/cli'

/** What a script leaves in `out` when run. */
const run = (code: string): unknown => {
  const ctx: { out: unknown[] } = { out: [] }
  vm.runInNewContext(code, ctx)
  return JSON.stringify(ctx.out)
}

describe('one statement a line', () => {
  it('breaks after statements and class members, and nowhere else', () => {
    const code =
      'var a=1;function f(x){if(x){return x+1}let y=x;switch(y){case 0:y=2;break;default:y=3}return y}class C{n=1;static s=2;m(){return this.n}}out.push(f(1),f(0),new C().m(),C.s);'
    const lines = oneStatementPerLine(code, 'x.js')
    expect(lines).toContain('var a=1;\n')
    expect(lines).toContain('return x+1}\n') // the if's block: its statement, then the if itself
    expect(lines).toContain('n=1;\n')
    expect(lines.split('\n').length).toBeGreaterThan(10)
    expect(run(lines)).toBe(run(code))
  })

  it('keeps the text of strings, templates and regular expressions, and what the code means', () => {
    const code = 'var t=`a;}\n\tb${(()=>{let q=1;return q})()};`;var s="x;}y";var r=/;}/g;function g(){return`\n`}out.push(t,s,r.source,g(),String.raw`x;}\n`);'
    const lines = oneStatementPerLine(code, 'x.js')
    expect(run(lines)).toBe(run(code))
    expect(lines).toContain('`a;}\n\tb${')
    expect(lines).toContain('"x;}y"')
  })

  it('refuses what does not parse', () => {
    expect(() => oneStatementPerLine('var a=;', 'x.js')).toThrow(/does not parse/)
  })
})

describe('the built main bundle', () => {
  it('is printed a statement a line without indentation, and an error names its function and line', () => {
    assertBuilt()
    const chunks = path.join(ROOT, 'out/main/chunks')
    const core = fs.readdirSync(chunks).find((f) => f.startsWith('core-')) as string
    const text = fs.readFileSync(path.join(chunks, core), 'utf8')
    const lines = text.split('\n')
    expect(lines.length).toBeGreaterThan(10000)
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(20000) // what Node prints of a crash's line
    expect(lines.filter((l) => /^\s/.test(l)).length).toBeLessThan(lines.length / 20) // (template text may start with tabs)
    const req = createRequire(path.join(ROOT, 'package.json'))
    const { classify } = req(path.join(ROOT, 'out/main/core.js')) as { classify: (x: unknown) => unknown }
    let stack = ''
    try {
      classify(undefined)
    } catch (err) {
      stack = String((err as Error).stack)
    }
    const at = new RegExp(`at (Module\\.)?classify \\(.*${core.replace('.', '\\.')}:(\\d+):(\\d+)\\)`).exec(stack)
    expect(at, stack).not.toBeNull()
    const line = lines[Number(at?.[2]) - 1] ?? ''
    expect(line.slice(0, Number(at?.[3]) + 40)).toMatch(/serverEnabled/) // the column points into that statement
  })
})
