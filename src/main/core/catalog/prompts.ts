// The catalog's prompts (docs/passthrough.md): every known prompt of a server with its facts and its status
// from the one classifier (classify.ts), like a tool: server off → config lists
// (enabled_prompts/disabled_prompts) → quarantine → the user's Disable/Reject → new or changed
// since approval. Built per server by the Catalog's refresh, never mutated after.
import type { ServerConfig } from '../../../shared/config-schema'
import type { PromptDefinition } from '../../../shared/prompts'
import type { ApprovedPrompt, PromptRecord, State } from '../state/schema'
import { configDenies, userLocked } from './facts'
import { reviewedEntries, type ReviewedCore, type ServerFacts } from './reviewed-entries'
import { promptHash } from '../state/hash'
import { agentNames } from './agent-names'
import { InspectedLists } from './inspected-lists'

export interface PromptEntry extends ReviewedCore<ApprovedPrompt> {
  /** "server:prompt" */
  readonly id: string
  readonly server: string
  readonly name: string
  /** the live definition when the server listed it, else the approved record */
  readonly def: Readonly<PromptDefinition>
}

/** The operator's prompt lists (exact names): enabled_prompts / disabled_prompts. */
export function configDeniesPrompt(prompt: string, s: Pick<ServerConfig, 'enabled_prompts' | 'disabled_prompts'>): boolean {
  return configDenies(prompt, { enabled_tools: s.enabled_prompts, disabled_tools: s.disabled_prompts })
}

/** A live prompt with its approval hash. */
export interface LivePrompt {
  def: PromptDefinition
  hash: string
}

export function livePrompts(prompts: readonly PromptDefinition[]): Map<string, LivePrompt> {
  return new Map(prompts.map((p) => [p.name, { def: p, hash: promptHash(p) }]))
}

/** The definition an approval record describes (a prompt not listed now is shown as approved). */
function recordDefinition(name: string, a: ApprovedPrompt): PromptDefinition {
  return {
    name,
    description: a.description,
    arguments: a.arguments,
    ...(a.title ? { title: a.title } : {}),
    ...(a.messages_hash ? { messages_hash: a.messages_hash } : {}),
    ...(a.messages ? { messages: a.messages } : {}),
  }
}

/** Every known prompt of a server, classified, sorted by name. */
export function promptEntries(s: ServerConfig, state: Readonly<State>, server: ServerFacts, live: ReadonlyMap<string, LivePrompt> | undefined): PromptEntry[] {
  return reviewedEntries<PromptDefinition, ApprovedPrompt, PromptRecord, PromptEntry>(
    {
      nameOf: (def) => def.name,
      fromRecord: recordDefinition,
      configDenied: (def) => configDeniesPrompt(def.name, s),
      userDisabled: userLocked,
      entry: (id, def, core) => ({ id, server: s.name, name: def.name, def, ...core }),
    },
    s,
    server,
    state.prompts,
    live?.values(),
  )
}

const NONE: readonly PromptEntry[] = Object.freeze([])

/** Which servers are in an agent's scope (Scope.allowsServer). */
export type ServerFilter = (server: string) => boolean
const EVERY_SERVER: ServerFilter = () => true

interface Names {
  byId: Map<string, string>
  byName: Map<string, string>
}

/**
 * The prompts part of the catalog: each server's listed prompts and classified entries, and the
 * agent-visible names of all of them. The Catalog rebuilds a server's part whenever it re-classifies
 * that server (a decision, a config change, a new list), so tools and prompts never disagree.
 */
export class PromptCatalog {
  private readonly live = new Map<string, Map<string, LivePrompt>>()
  private readonly inspectedAs = new InspectedLists()
  private readonly built = new Map<string, readonly PromptEntry[]>()
  private readonly byId = new Map<string, PromptEntry>()
  /** the agent-visible names per set of servers in scope (see agentName) */
  private readonly names = new Map<string, Names>()

  /** The server listed its prompts; `inspectedAs`: an Inspect did, of the server with this identity. */
  setLive(server: string, prompts: readonly PromptDefinition[], inspectedAs?: string): void {
    this.live.set(server, livePrompts(prompts))
    this.inspectedAs.set(server, inspectedAs)
  }

  /** The prompts the last Inspect listed, while the server still has the identity it had then (else null). */
  inspected(server: string, identity: string): readonly PromptDefinition[] | null {
    const l = this.live.get(server)
    return l && this.inspectedAs.of(server, identity) ? [...l.values()].map((p) => p.def) : null
  }

  forget(server: string): void {
    this.live.delete(server)
    this.inspectedAs.forget(server)
    this.rebuild(server, undefined, undefined, undefined)
  }

  /**
   * Re-classify one server's prompts (cfg undefined: the server is gone). `shownAs`: the server
   * identity whose Inspect's prompts are shown now (Catalog.inspectedShown), else null: an
   * Inspect's list is an entry only while it is shown (approving the server approves exactly those).
   */
  rebuild(
    server: string,
    cfg: ServerConfig | undefined,
    state: Readonly<State> | undefined,
    facts: ServerFacts | undefined,
    shownAs: string | null = null,
  ): void {
    for (const e of this.built.get(server) ?? NONE) this.byId.delete(e.id)
    const before = (this.built.get(server) ?? NONE).map((e) => e.id).join('\u0000')
    if (!cfg || !state || !facts) {
      this.built.delete(server)
    } else {
      const shown = !this.inspectedAs.byInspect(server) || (shownAs !== null && this.inspectedAs.of(server, shownAs))
      const entries = Object.freeze(promptEntries(cfg, state, facts, shown ? this.live.get(server) : undefined))
      this.built.set(server, entries)
      for (const e of entries) this.byId.set(e.id, e)
    }
    if ((this.built.get(server) ?? NONE).map((e) => e.id).join('\u0000') !== before) this.names.clear()
  }

  entries(server: string): readonly PromptEntry[] {
    return this.built.get(server) ?? NONE
  }

  entry(id: string): PromptEntry | undefined {
    return this.byId.get(id)
  }

  all(): IterableIterator<PromptEntry> {
    return this.byId.values()
  }

  /**
   * The name agents see for a prompt (`<server>__<prompt>`, see agent-names.ts), among the prompts
   * of the servers `inScope` allows (an agent's scope; every server when not given). Names are made
   * unique within that scope only: a name that meets one of a server out of the scope would
   * otherwise come out hashed, telling the agent that the other server exists.
   */
  agentName(id: string, inScope: ServerFilter = EVERY_SERVER): string | undefined {
    return this.namesIn(inScope).byId.get(id)
  }

  /** The prompt an agent-visible name stands for, among the prompts of the servers in scope. */
  byAgentName(name: string, inScope: ServerFilter = EVERY_SERVER): PromptEntry | undefined {
    const id = this.namesIn(inScope).byName.get(name)
    return id === undefined ? undefined : this.byId.get(id)
  }

  private namesIn(inScope: ServerFilter): Names {
    const servers = [...this.built.keys()].filter((s) => inScope(s)).sort()
    const key = JSON.stringify(servers)
    let n = this.names.get(key)
    if (!n) {
      const byId = agentNames(servers.flatMap((s) => (this.built.get(s) ?? NONE).map((e) => ({ id: e.id, server: e.server, name: e.name }))))
      n = { byId, byName: new Map([...byId].map(([id, name]) => [name, id])) }
      // one entry per distinct scope (agents are few); dropped whenever a server's prompts change
      this.names.set(key, n)
    }
    return n
  }
}
