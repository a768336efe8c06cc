// The names agents see for what Toolgate relays under one flat name space (docs/passthrough.md): prompts in
// prompts/list and tools in the direct view are `<server>__<name>`. Clients show prompts as slash
// commands and many accept tool names only of [A-Za-z0-9_-]{1,64}, so a name that is not already
// of that form (a ".", a space, a long name) is written with "_" for every other character,
// shortened, and made unique by a short hash of its id; two names that would still meet get a
// hash each. Deterministic for a given set of ids; the catalog maps names back to ids (never by
// splitting a name).
import { createHash } from 'node:crypto'

const CLEAN = /^[A-Za-z0-9_-]+$/
/** The longest name some clients accept for a tool (and a slash command reads well within it). */
export const MAX_AGENT_NAME = 64
const HASH_CHARS = 6

export interface NamedRef {
  /** "server:name" */
  id: string
  server: string
  name: string
}

function shortHash(id: string, extra = ''): string {
  return createHash('sha256').update(`${id}${extra}`).digest('hex').slice(0, HASH_CHARS)
}

function hashed(base: string, id: string, extra = ''): string {
  const safe = base.replace(/[^A-Za-z0-9_-]/g, '_')
  return `${safe.slice(0, MAX_AGENT_NAME - HASH_CHARS - 1)}_${shortHash(id, extra)}`
}

/** The plain form `<server>__<name>` when it is valid as it is, else its hashed form. */
function candidate(r: NamedRef): string {
  const base = `${r.server}__${r.name}`
  return CLEAN.test(r.server) && CLEAN.test(r.name) && base.length <= MAX_AGENT_NAME ? base : hashed(base, r.id)
}

/** The agent-visible name of each id (ids are unique; names come out unique too). */
export function agentNames(refs: Iterable<NamedRef>): Map<string, string> {
  const sorted = [...refs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const wanted = new Map<string, string[]>()
  for (const r of sorted) {
    const c = candidate(r)
    wanted.set(c, [...(wanted.get(c) ?? []), r.id])
  }
  const out = new Map<string, string>()
  const taken = new Set<string>()
  for (const r of sorted) {
    const c = candidate(r)
    let name = (wanted.get(c)?.length ?? 0) > 1 ? hashed(`${r.server}__${r.name}`, r.id) : c
    for (let i = 1; taken.has(name); i++) name = hashed(`${r.server}__${r.name}`, r.id, `#${i}`)
    taken.add(name)
    out.set(r.id, name)
  }
  return out
}
