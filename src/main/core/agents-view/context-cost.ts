// What an agent's tool definitions cost in its context window, counted with a real tokenizer:
// the definitions it receives at connect (Toolgate's meta-tools for its scope) against all of its
// callable tools listed in full, as if each upstream were connected directly. Encoding o200k_base
// (gpt-tokenizer, ranks bundled in the package: works offline); loaded on first use, counts
// cached per immutable catalog entry.
import { createRequire } from 'node:module'
import type { Tool } from '@modelcontextprotocol/server'
import type { CatalogEntry } from '../catalog/catalog'

export const ENCODING = 'o200k_base'

type Encoder = (text: string) => number
let countTokens: Encoder | null = null

/**
 * Loads the encoding once (≈150 ms, so not at start-up: only the Agents view needs it). Required,
 * not import()-ed: on Node 20 the launcher compiles the built main code with V8's code cache
 * (bin/toolgate.js), where a dynamic import() cannot run.
 */
export async function loadTokenizer(): Promise<void> {
  if (countTokens) return
  const mod = createRequire(__filename)('gpt-tokenizer/encoding/o200k_base') as { countTokens(text: string): number }
  countTokens = (t) => mod.countTokens(t)
}

/** Tokens of a text in o200k_base (after loadTokenizer()). */
export function tokens(text: string): number {
  if (!countTokens) throw new Error('the tokenizer is not loaded: await loadTokenizer() first')
  return countTokens(text)
}

/** A tool as an MCP tools/list result lists it (what a directly connected agent would read). */
export function listedDefinition(e: CatalogEntry): Tool {
  const d = e.def
  return {
    name: d.name,
    ...(d.title ? { title: d.title } : {}),
    description: d.description,
    inputSchema: d.inputSchema as Tool['inputSchema'],
    ...(d.outputSchema ? { outputSchema: d.outputSchema as Tool['outputSchema'] } : {}),
    ...(d.annotations ? { annotations: d.annotations } : {}),
  }
}

const perEntry = new WeakMap<CatalogEntry, number>()

/** Tokens of one tool's listed definition (JSON), cached: catalog entries never change. */
export function entryTokens(e: CatalogEntry): number {
  let n = perEntry.get(e)
  if (n === undefined) {
    n = tokens(JSON.stringify(listedDefinition(e)))
    perEntry.set(e, n)
  }
  return n
}

export interface ContextCost {
  encoding: typeof ENCODING
  /** the meta-tools the agent receives in tools/list when it connects to Toolgate */
  at_connect: number
  /** every tool it can call, each definition in full (the sum over the definitions) */
  all_callable: number
  callable_tools: number
}

export function contextCost(metaTools: readonly Tool[], callable: readonly CatalogEntry[]): ContextCost {
  return {
    encoding: ENCODING,
    at_connect: tokens(JSON.stringify({ tools: metaTools })),
    all_callable: callable.reduce((n, e) => n + entryTokens(e), 0),
    callable_tools: callable.length,
  }
}
