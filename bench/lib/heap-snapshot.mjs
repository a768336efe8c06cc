// A V8 heap snapshot (.heapsnapshot, as `bench/mem-ab.mjs --snapshots` writes them) read for the
// heap tools (heap-breakdown.mjs, heap-diff.mjs): its nodes by index and their strong edges.
import fs from 'node:fs'

/**
 * `count` nodes (0 is the root), each with its `type`, `name` and `size` (self size), and `out(n)`:
 * the strong edges of node n (weak and shortcut edges left out) as [name, toNode], the name an
 * index for element and hidden edges.
 */
export function readSnapshot(file) {
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
  function* out(n) {
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += EF) {
      const t = edges[e + E_TYPE]
      if (t === WEAK || t === SHORTCUT) continue
      const en = edgeTypes[t] === 'element' || edgeTypes[t] === 'hidden' ? edges[e + E_NAME] : strings[edges[e + E_NAME]]
      yield [en, edges[e + E_TO] / NF]
    }
  }
  return {
    count,
    type: (n) => nodeTypes[nodes[n * NF + N_TYPE]],
    name: (n) => strings[nodes[n * NF + N_NAME]],
    size: (n) => nodes[n * NF + N_SIZE],
    out,
  }
}
