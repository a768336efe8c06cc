#!/usr/bin/env node
// `node bench/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top N] [--hops H]`: what B's live heap
// holds more than A's (issue 29). Made to find what grows with each server: A a snapshot at 1
// server, B at 50, from `bench/mem-ab.mjs --snapshots DIR`. Live = reachable from the roots through
// strong edges. Prints the difference in bytes and objects by node type and name, then by where
// the objects hang: type, name and the last H edges of the first path found to them from the
// roots (`spawnargs:obj/ChildProcess > elements:obj/Array`), numbers in names folded (s12 → sN).
// Session 11 found with it the sandbox plan facts each running server kept through its launch's
// cleanup, and each sandboxed server's bwrap argv held twice (docs/performance.md).
import { readSnapshot } from './lib/heap-snapshot.mjs'

const argv = process.argv.slice(2)
const files = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'))
const opt = (f, d) => (argv.includes(f) ? Number(argv[argv.indexOf(f) + 1]) : d)
const top = opt('--top', 40)
const hops = opt('--hops', 2)
if (files.length !== 2) {
  console.error('usage: node bench/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top N] [--hops H]')
  process.exit(2)
}

/** The live nodes of a snapshot grouped two ways: by type and name, and by type, name and the last edges to them. */
function groups(file) {
  const { count, type, size, out, name: fullName } = readSnapshot(file)
  const name = (n) => (type(n).includes('string') ? '' : fullName(n).slice(0, 40).replace(/\n/g, ' '))
  // breadth first: the first path found is a shortest one
  const parent = new Int32Array(count).fill(-1)
  const via = new Array(count)
  parent[0] = 0
  const queue = [0]
  for (let q = 0; q < queue.length; q++) {
    const n = queue[q]
    for (const [edge, to] of out(n)) {
      if (parent[to] >= 0) continue
      parent[to] = n
      via[to] = typeof edge === 'number' ? '[]' : String(edge)
      queue.push(to)
    }
  }
  const site = (n) => {
    const parts = []
    for (let m = n, k = 0; m > 0 && k < hops; m = parent[m], k++) parts.push(`${via[m]}:${type(parent[m]).slice(0, 3)}/${name(parent[m])}`)
    return parts.reverse().join(' > ').replace(/\d+/g, 'N')
  }
  const byName = new Map()
  const bySite = new Map()
  const add = (map, k, bytes) => {
    const a = map.get(k) ?? [0, 0]
    a[0]++
    a[1] += bytes
    map.set(k, a)
  }
  let total = 0
  for (const n of queue) {
    const k = `${type(n)} ${name(n)}`
    add(byName, k, size(n))
    add(bySite, `${k} | ${site(n)}`, size(n))
    total += size(n)
  }
  return { byName, bySite, total }
}

const [a, b] = files.map(groups)
const KB = (x) => (x / 1024).toFixed(1)
console.log(`${files[0]}: ${KB(a.total)} KB live; ${files[1]}: ${KB(b.total)} KB live; difference ${KB(b.total - a.total)} KB`)
for (const [title, key] of [
  ['by type and name (KB, objects)', 'byName'],
  [`by type, name and the last ${hops} edges to them (KB, objects)`, 'bySite'],
]) {
  console.log(`\n${title}`)
  const keys = new Set([...a[key].keys(), ...b[key].keys()])
  const rows = [...keys].map((k) => {
    const x = a[key].get(k) ?? [0, 0]
    const y = b[key].get(k) ?? [0, 0]
    return [k, y[1] - x[1], y[0] - x[0]]
  })
  for (const [k, bytes, n] of rows.sort((p, q) => q[1] - p[1]).slice(0, top)) console.log(`${KB(bytes).padStart(8)} ${String(n).padStart(6)}  ${k}`)
}
