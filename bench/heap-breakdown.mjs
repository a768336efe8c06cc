#!/usr/bin/env node
// `node bench/heap-breakdown.mjs FILE.heapsnapshot [--top N]`: what a heap snapshot of Toolgate (or a peer) holds (issue 29).
// Prints the live heap (reachable from the roots through strong edges) by node type, the kinds of
// compiled code, the largest strings (module sources), each loaded script's source and the code
// V8 compiled from it, and what is reachable only through a few groups of objects (zod schemas,
// ajv): the heap that would go if those objects went (everything reachable again once they are
// taken out of the graph is not counted). Snapshots come from `bench/mem-ab.mjs --snapshots DIR`.
import { readSnapshot } from './lib/heap-snapshot.mjs'

const argv = process.argv.slice(2)
const file = argv.find((a) => !a.startsWith('--'))
const top = Number(argv.includes('--top') ? argv[argv.indexOf('--top') + 1] : 15)
if (!file) {
  console.error('usage: node bench/heap-breakdown.mjs FILE.heapsnapshot [--top N]')
  process.exit(2)
}
const { count, type, name, size, out } = readSnapshot(file)
/** Nodes reachable from the root without passing through a node for which `cut` is true. */
function reachable(cut = () => false) {
  const seen = new Uint8Array(count)
  const stack = [0]
  seen[0] = 1
  while (stack.length) {
    const n = stack.pop()
    for (const [, to] of out(n))
      if (!seen[to] && !cut(to)) {
        seen[to] = 1
        stack.push(to)
      }
  }
  return seen
}
const live = reachable()
const sum = (seen) => {
  let s = 0
  for (let n = 0; n < count; n++) if (seen[n]) s += size(n)
  return s
}
const total = sum(live)
const MB = (b) => (b / 1048576).toFixed(2)
const table = (title, map, limit = top) => {
  console.log(`\n${title}`)
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) console.log(`  ${MB(v).padStart(6)}  ${k}`)
}
console.log(`${file}\nlive heap ${MB(total)} MB in ${live.reduce((a, b) => a + b, 0)} objects`)

const byType = new Map()
const codeKinds = new Map()
for (let n = 0; n < count; n++) {
  if (!live[n]) continue
  byType.set(type(n), (byType.get(type(n)) ?? 0) + size(n))
  if (type(n) === 'code') {
    const k = name(n).startsWith('system / ') ? name(n) : '(SharedFunctionInfo and other named code)'
    codeKinds.set(k, (codeKinds.get(k) ?? 0) + size(n))
  }
}
table('by node type (MB)', byType)
table('compiled code by kind (MB)', codeKinds, 10)

// Scripts (code nodes named by their file, with a `source`): their source and the code V8 keeps for them (SharedFunctionInfos with their bytecode,
// scope infos, feedback metadata: what an SFI owns alone, i.e. reachable only through SFIs of that script)
const scripts = []
for (let n = 0; n < count; n++) {
  if (!live[n] || type(n) !== 'code') continue
  let src = -1
  for (const [en, to] of out(n)) if (en === 'source') src = size(to)
  if (src >= 0) scripts.push({ n, src, scriptName: name(n) })
}
console.log('\nlargest module sources (MB)')
for (const s of scripts.sort((a, b) => b.src - a.src).slice(0, 8)) console.log(`  ${MB(s.src).padStart(6)}  ${s.scriptName || '(unnamed)'}`)
console.log(`  ${MB(scripts.reduce((a, s) => a + s.src, 0)).padStart(6)}  all ${scripts.length} scripts' sources`)

// Code per script: an SFI belongs to the script its `script` edge names.
const scriptOf = new Map(scripts.map((s) => [s.n, s.scriptName]))
const sfiScript = new Int32Array(count).fill(-1)
for (let n = 0; n < count; n++) {
  if (!live[n] || type(n) !== 'code') continue
  for (const [en, to] of out(n)) if ((en === 'script' || en === 'script_or_debug_info') && scriptOf.has(to)) sfiScript[n] = to
}
const codeOf = new Map()
{
  // what the SFIs of all scripts hold that nothing else reaches
  const withoutSfis = reachable((n) => sfiScript[n] >= 0)
  const own = new Int32Array(count).fill(-1)
  // attribute each node reachable only through SFIs to the first SFI's script found from it
  for (let n = 0; n < count; n++) {
    if (sfiScript[n] < 0) continue
    const stack = [n]
    if (own[n] < 0) own[n] = sfiScript[n]
    while (stack.length) {
      const m = stack.pop()
      for (const [, to] of out(m))
        if (live[to] && !withoutSfis[to] && own[to] < 0 && sfiScript[to] < 0) {
          own[to] = sfiScript[n]
          stack.push(to)
        }
    }
  }
  for (let n = 0; n < count; n++)
    if (own[n] >= 0) codeOf.set(scriptOf.get(own[n]) || '(unnamed)', (codeOf.get(scriptOf.get(own[n]) || '(unnamed)') ?? 0) + size(n))
}
table('code held by functions of each script (SharedFunctionInfo, bytecode, scope info; MB)', codeOf, 10)

// Groups: what would go if they went
const hasEdge = (n, edge) => {
  for (const [en] of out(n)) if (en === edge) return true
  return false
}
const groups = {
  'zod schemas (objects with a `_zod`)': (n) => type(n) === 'object' && hasEdge(n, '_zod'),
  'ajv instances (objects with `scope` and `opts` and `schemas`)': (n) =>
    type(n) === 'object' && hasEdge(n, 'opts') && hasEdge(n, 'schemas') && hasEdge(n, 'scope'),
}
console.log('\nreachable only through (MB; objects in the group)')
for (const [label, pred] of Object.entries(groups)) {
  let k = 0
  const isIn = new Uint8Array(count)
  for (let n = 0; n < count; n++)
    if (live[n] && pred(n)) {
      isIn[n] = 1
      k++
    }
  console.log(`  ${MB(total - sum(reachable((n) => isIn[n] === 1))).padStart(6)}  ${label}: ${k}`)
}
