// The catalog's resource templates (docs/passthrough.md "Resources"): every known template of a
// server with its status from the one classifier (classify.ts), like a prompt: server off →
// quarantine → the user's Reject → new or changed since approval. A template is known by the
// server's own URI template. Built per server by the Catalog's refresh, never mutated after.
import type { ServerConfig } from '../../../shared/config-schema'
import type { TemplateDefinition } from '../../../shared/resources'
import { toolId } from '../../../shared/ids'
import type { ApprovedTemplate, State, TemplateRecord } from '../state/schema'
import { rejectionOf } from './facts'
import { templateHash } from '../state/hash'
import { reviewedEntries, type ReviewedCore, type ServerFacts } from './reviewed-entries'
import { InspectedLists } from './inspected-lists'

export interface TemplateEntry extends ReviewedCore<ApprovedTemplate> {
  /** "server:<the server's URI template>" */
  readonly id: string
  readonly server: string
  /** the live definition when the server listed it, else the approved record */
  readonly def: Readonly<TemplateDefinition>
}

export const templateId = (server: string, uriTemplate: string): string => toolId(server, uriTemplate)

/** The definition an approval record describes (a template not listed now is shown as approved). */
function recordDefinition(uriTemplate: string, a: ApprovedTemplate): TemplateDefinition {
  const { hash, approved_at, ...def } = a
  void hash
  void approved_at
  return { uriTemplate, ...def }
}

/** Every known template of a server, classified, sorted by URI template. */
function templateEntries(s: ServerConfig, state: Readonly<State>, server: ServerFacts, live: readonly TemplateDefinition[] | undefined): TemplateEntry[] {
  return reviewedEntries<TemplateDefinition, ApprovedTemplate, TemplateRecord, TemplateEntry>(
    {
      nameOf: (def) => def.uriTemplate,
      fromRecord: recordDefinition,
      // no operator lists for templates; the user's Reject is the one switch
      configDenied: () => false,
      userDisabled: (rec, hash) => rejectionOf(rec, hash) !== undefined,
      entry: (id, def, core) => ({ id, server: s.name, def, ...core }),
    },
    s,
    server,
    state.resource_templates ?? {},
    live?.map((def) => ({ def, hash: templateHash(def) })),
  )
}

const NONE: readonly TemplateEntry[] = Object.freeze([])

/**
 * The templates part of the catalog: each server's listed templates and classified entries. The
 * Catalog rebuilds a server's part whenever it re-classifies that server, so tools, prompts and
 * templates never disagree.
 */
export class TemplateCatalog {
  private readonly live = new Map<string, readonly TemplateDefinition[]>()
  private readonly inspectedAs = new InspectedLists()
  private readonly built = new Map<string, readonly TemplateEntry[]>()
  private readonly byId = new Map<string, TemplateEntry>()

  /** The server listed its templates; `inspectedAs`: an Inspect did, of the server with this identity. */
  setLive(server: string, templates: readonly TemplateDefinition[], inspectedAs?: string): void {
    this.live.set(server, templates)
    this.inspectedAs.set(server, inspectedAs)
  }

  /** The templates the last Inspect listed, while the server still has the identity it had then (else null). */
  inspected(server: string, identity: string): readonly TemplateDefinition[] | null {
    const l = this.live.get(server)
    return l && this.inspectedAs.of(server, identity) ? l : null
  }

  /** The hashes of the templates the server listed last, by id (to tell whether a new list changes anything). */
  liveHashes(server: string): string | undefined {
    const l = this.live.get(server)
    return l ? l.map((t) => `${templateId(server, t.uriTemplate)}=${templateHash(t)}`).join('\n') : undefined
  }

  forget(server: string): void {
    this.live.delete(server)
    this.inspectedAs.forget(server)
    this.rebuild(server, undefined, undefined, undefined)
  }

  /** Re-classify one server's templates (cfg undefined: the server is gone). */
  rebuild(server: string, cfg: ServerConfig | undefined, state: Readonly<State> | undefined, facts: ServerFacts | undefined): void {
    for (const e of this.built.get(server) ?? NONE) this.byId.delete(e.id)
    if (!cfg || !state || !facts) {
      this.built.delete(server)
      return
    }
    const entries = Object.freeze(templateEntries(cfg, state, facts, this.live.get(server)))
    this.built.set(server, entries)
    for (const e of entries) this.byId.set(e.id, e)
  }

  entries(server: string): readonly TemplateEntry[] {
    return this.built.get(server) ?? NONE
  }

  entry(id: string): TemplateEntry | undefined {
    return this.byId.get(id)
  }
}
