// In-process setup: a Catalog over a temp state.json with every server trusted
// (quarantined:false), filled through ingestTools exactly as the upstream manager does when a
// server lists its tools.
import path from 'node:path'
import { ROOT, requireRoot, now } from './util.mjs'

let core = null
export function loadCore() {
  if (core) return core
  try {
    core = requireRoot(path.join(ROOT, 'out/main/core.js'))
  } catch (e) {
    throw new Error(`cannot load out/main/core.js (${e.message}); build first: npm run build`)
  }
  return core
}

/** mcpServers entries for a catalog spec; `extra(name, i)` may add fields per server. */
export function serverEntries(spec, extra = () => ({})) {
  const o = {}
  spec.servers.forEach((s, i) => {
    o[s.name] = { command: 'node', args: ['fixture.mjs'], quarantined: false, ...extra(s.name, i) }
  })
  return o
}

/**
 * Builds a catalog from `spec` ({servers: [{name, tools}]}) in `dir`. `concurrent` (default) ingests
 * every server at once, as at startup; otherwise one after the other (perServerMs filled).
 * Returns {catalog, config, store, buildMs, perServerMs}.
 */
export async function buildCatalog(spec, dir, { extra, configExtra = {}, concurrent = true } = {}) {
  const { parseConfig, Catalog, StateStore, ingestTools } = loadCore()
  const config = parseConfig('bench.json', { mcpServers: serverEntries(spec, extra), ...configExtra })
  const store = new StateStore(path.join(dir, 'state.json'))
  const catalog = new Catalog(config, store)
  const perServerMs = []
  const t0 = now()
  if (concurrent) {
    // as at startup: every upstream lists its tools at about the same time; state writes coalesce
    await Promise.all(spec.servers.map((s) => ingestTools(catalog, s.name, s.tools)))
  } else {
    for (const s of spec.servers) {
      const t = now()
      await ingestTools(catalog, s.name, s.tools)
      perServerMs.push(now() - t)
    }
  }
  await store.settle()
  const buildMs = now() - t0
  return { catalog, config, store, buildMs, perServerMs }
}
