// The JSON text of a retrieve_tools answer, byte for byte what JSON.stringify(response) gives, with
// each callable result's text (everything but its score: name, description, schemas, annotations,
// call_with) serialized once per catalog entry and kept. Writing those schemas again on every
// search was the largest single cost of a search over stdio (docs/benchmarks.md, "SDK v2
// against SDK v1"). Catalog entries are immutable (a change of a tool, its status or its variant
// builds new ones), so an entry's text never goes stale; it is dropped with its entry.
import type { CallableEntry, RetrieveResponse } from '../../../shared/retrieve'
import type { CatalogEntry } from '../catalog/catalog'

/** One callable result's JSON up to its score: `{"name":…,…,"call_with":…,"score":` */
const heads = new WeakMap<CatalogEntry, string>()

/** A callable result made from `source` (retrieve() builds it from the entry and the hit's score). */
function callableText(source: CatalogEntry, c: CallableEntry): string {
  let head = heads.get(source)
  if (head === undefined || c.name !== source.id) {
    // score is the last key: the object without it, its closing brace replaced by the score's key
    const { score: _score, ...rest } = c
    head = `${JSON.stringify(rest).slice(0, -1)},"score":`
    if (c.name === source.id) heads.set(source, head)
  }
  return `${head}${JSON.stringify(c.score)}}`
}

/**
 * JSON.stringify(response), where `sources[i]` is the catalog entry that `response.tools[i]` was
 * made from. The keys keep their order: query, tools, then the rest as retrieve() added them.
 */
export function responseText(response: RetrieveResponse, sources: readonly CatalogEntry[]): string {
  const { query, tools, ...rest } = response
  let list = ''
  for (let i = 0; i < tools.length; i++) {
    const source = sources[i]
    list += (i ? ',' : '') + (source ? callableText(source, tools[i]) : JSON.stringify(tools[i]))
  }
  // rest always holds total: `{"total":…}` without its opening brace
  return `{"query":${JSON.stringify(query)},"tools":[${list}],${JSON.stringify(rest).slice(1)}`
}
