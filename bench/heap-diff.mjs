#!/usr/bin/env node
// `node bench/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top N] [--hops H]`: what B's live heap
// holds more than A's (issue 29). Made to find what grows with each server: A a snapshot at 1
// server, B at 50, from `bench/mem-ab.mjs --snapshots DIR`. Live = reachable from the roots through
// strong edges. Prints the difference in bytes and objects by node type and name, then by where
// the objects hang: type, name and the last H edges of the first path found to them from the
// roots (`spawnargs:obj/ChildProcess > elements:obj/Array`), numbers in names folded (s12 → sN).
// Session 11 found with it the sandbox plan facts each running server kept through its launch's
// cleanup, and each sandboxed server's bwrap argv held twice (docs/performance.md).
import fs from 'node:fs'

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
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'))
  const meta = snap.snapshot.meta
  const NF = meta.node_fields.length
  const EF = meta.edge_fields.length
  const nodeTypes = meta.node_types[0]
  const edgeTypes = meta.edge_types[0]
  const [N_TYPE, N_NAME, N_SIZE, N_EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f))
  const [E_TYPE, E_NAME, E_TO] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f))
  const { nodes, edges, strings } = snap
  const count = nodes.length / NF
  const firstEdge = new Uint32Array(count + 1)
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e
    e += nodes[i * NF + N_EDGES] * EF
    firstEdge[i + 1] = e
  }
  const WEAK = edgeTypes.indexOf('weak')
  const SHORTCUT = edgeTypes.indexOf('shortcut')
  const type = (n) => nodeTypes[nodes[n * NF + N_TYPE]]
  const name = (n) => {
    const t = type(n)
    const s = strings[nodes[n * NF + N_NAME]]
    if (t.includes('string')) return ''
    return s.slice(0, 40).replace(/\n/g, ' ')
  }
  // breadth first: the first path found is a shortest one
  const parent = new Int32Array(count).fill(-1)
  const via = new Int32Array(count).fill(-1)
  parent[0] = 0
  const queue = [0]
  for (let q = 0; q < queue.length; q++) {
    const n = queue[q]
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += EF) {
      const t = edges[e + E_TYPE]
      if (t === WEAK || t === SHORTCUT) continue
      const to = edges[e + E_TO] / NF
      if (parent[to] >= 0) continue
      parent[to] = n
      via[to] = e
      queue.push(to)
    }
  }
  const edgeName = (e) => {
    const t = edgeTypes[edges[e + E_TYPE]]
    return t === 'element' || t === 'hidden' ? '[]' : String(strings[edges[e + E_NAME]])
  }
  const site = (n) => {
    const parts = []
    for (let m = n, k = 0; m > 0 && k < hops; m = parent[m], k++) parts.push(`${edgeName(via[m])}:${type(parent[m]).slice(0, 3)}/${name(parent[m])}`)
    return parts.reverse().join(' > ').replace(/\d+/g, 'N')
  }
  const byName = new Map()
  const bySite = new Map()
  const add = (map, k, size) => {
    const a = map.get(k) ?? [0, 0]
    a[0]++
    a[1] += size
    map.set(k, a)
  }
  for (const n of queue) {
    const size = nodes[n * NF + N_SIZE]
    const k = `${type(n)} ${name(n)}`
    add(byName, k, size)
    add(bySite, `${k} | ${site(n)}`, size)
  }
  return { byName, bySite, total: queue.reduce((s, n) => s + nodes[n * NF + N_SIZE], 0) }
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
