// hiddenAround (sandbox/plan-hidden.ts): which hidden paths a program or argument lies in, looked
// up by its folders instead of against every hidden path. It must answer what the definition
// does (every hidden path, as written or resolved, that the path lies in by path.relative) for
// plain and tricky paths alike: a hidden path missed would show a program's folder beside keys.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hiddenAround, hiddenBase, type HiddenBase } from '../../src/main/core/upstream/sandbox/plan-hidden'
import { PlanFacts } from '../../src/main/core/upstream/sandbox/plan-facts'

let root: string
let home: string
let base: HiddenBase
let facts: PlanFacts

/** The definition: path.relative's answer of "child is parent or below it". */
const inside = (child: string, parent: string): boolean => {
  if (child === parent) return true
  const rel = path.relative(parent, child)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

/** What the plan asked before: each hidden path checked, the hits resolved, once each, shallowest first. */
function byDefinition(b: HiddenBase, p: string, r: string): string[] {
  const hits = b.hiddenAll.filter((h) => inside(p, h.path) || inside(r, facts.real(h.path))).map((h) => facts.real(h.path))
  const depth = (x: string): number => x.split('/').filter(Boolean).length
  return [...new Set(hits)].sort((a, c) => depth(a) - depth(c))
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(process.cwd(), '.tmp-hidden-around-'))
  home = path.join(root, 'home')
  const write = (p: string): void => {
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, 'x')
  }
  write(path.join(home, '.ssh/id_ed25519'))
  write(path.join(home, '.netrc'))
  write(path.join(home, '.netrc~'))
  write(path.join(home, '.config/gh/hosts.yml'))
  write(path.join(root, 'elsewhere/keys/k'))
  // a hidden folder that leads elsewhere: a path there lies in it by where it leads
  fs.symlinkSync(path.join(root, 'elsewhere/keys'), path.join(home, '.aws'))
  write(path.join(home, 'bin/tool'))
  facts = new PlanFacts({ fresh: true })
  base = hiddenBase(
    { homes: [facts.real(home)], dataDir: path.join(root, 'data'), configPath: path.join(root, 'data/mcp_config.json'), uid: 1000, platform: 'linux' },
    facts,
  )
})

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe('hiddenAround', () => {
  it('names the hidden paths a path lies in, as written or where it leads', () => {
    const h = facts.real(home)
    expect(hiddenAround(base, path.join(h, '.ssh/id_ed25519'), path.join(h, '.ssh/id_ed25519'))).toEqual([path.join(h, '.ssh')])
    const viaLink = path.join(facts.real(root), 'elsewhere/keys/k')
    expect(hiddenAround(base, viaLink, viaLink)).toEqual([viaLink.replace(/\/k$/, '')])
    expect(hiddenAround(base, path.join(h, '.aws/k'), viaLink)).toEqual([viaLink.replace(/\/k$/, '')])
    expect(hiddenAround(base, path.join(h, 'bin/tool'), path.join(h, 'bin/tool'))).toEqual([])
    expect(hiddenAround(base, path.join(h, '.config/gh/x/y'), path.join(h, '.config/gh/x/y'))).toEqual([path.join(h, '.config/gh')])
    expect(hiddenAround(base, path.join(root, 'data/state.json'), path.join(facts.real(root), 'data/state.json'))).toEqual([
      path.join(facts.real(root), 'data'),
    ])
  })

  it('answers as the definition for paths in, beside and around every hidden path, plain and not', () => {
    const tails = ['', '/x', '/x/y', '/', '/.', '/..', '/../x', '//x', '/..x', 'x', '.bak', '/./x']
    const heads = new Set<string>(['/', '//', h0(), path.join(h0(), 'bin'), path.join(root, 'elsewhere')])
    for (const h of base.hiddenAll) {
      heads.add(h.path)
      heads.add(facts.real(h.path))
      heads.add(path.dirname(h.path))
    }
    let hits = 0
    let checked = 0
    for (const head of heads) {
      for (const tail of tails) {
        const p = head + tail
        for (const r of [p, facts.real(path.resolve(p))]) {
          const want = byDefinition(base, p, r)
          expect(hiddenAround(base, p, r), `${p} (${r})`).toEqual(want)
          if (want.length > 0) hits++
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(1000)
    expect(hits).toBeGreaterThan(200) // not only paths outside every hidden one
  })
})

function h0(): string {
  return facts.real(home)
}
