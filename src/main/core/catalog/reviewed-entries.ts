// What a prompt's and a resource template's catalog entries share (prompts.ts, templates.ts): every
// known definition of a server, live or, before the server listed any, as its approval records
// describe them, with its approval against its record, the user's rejection of exactly this hash,
// its facts and its status from the one classifier (classify.ts), sorted by name.
import type { QuarantineSource } from '../../../shared/api'
import type { ServerConfig } from '../../../shared/config-schema'
import { toolId } from '../../../shared/ids'
import type { ToolStatus } from '../../../shared/statuses'
import { classify, type Approval, type ToolFacts } from './classify'
import { approvalOf, rejectionOf, type UserLocks } from './facts'

/** The facts of a server that every one of its prompts and templates shares. */
export interface ServerFacts {
  readonly quarantine: QuarantineSource | null
  readonly failClosed: boolean
}

/** What an entry holds beyond its id, server and definition. */
export interface ReviewedCore<A> {
  readonly hash: string
  readonly approval: Approval
  /** the approved definition when the live one differs from it (a "changed" one) */
  readonly previous?: Readonly<A>
  readonly rejectedAt?: string
  readonly facts: ToolFacts
  readonly status: ToolStatus
  /** the server is held in quarantine by the operator */
  readonly operatorHold: boolean
}

export interface ReviewedKind<D, A extends { hash: string }, R extends UserLocks & { approved?: A }, E> {
  /** the name a definition is known by in its server ("server:<name>" is its id) */
  nameOf(def: D): string
  /** the definition an approval record describes (one the server has not listed now is shown as approved) */
  fromRecord(name: string, approved: A): D
  /** the operator's lists deny it */
  configDenied(def: D): boolean
  /** the user switched it off or rejected exactly this hash */
  userDisabled(rec: R | undefined, hash: string): boolean
  entry(id: string, def: D, core: ReviewedCore<A>): E
}

/** Every known definition of server `s` as an entry: the live ones (`live`, with their hashes) against `records`, else the approved records. */
export function reviewedEntries<D, A extends { hash: string }, R extends UserLocks & { approved?: A }, E>(
  kind: ReviewedKind<D, A, R, E>,
  s: ServerConfig,
  server: ServerFacts,
  records: Readonly<Record<string, R>>,
  live: Iterable<{ def: D; hash: string }> | undefined,
): E[] {
  const out: Array<{ name: string; entry: E }> = []
  const push = (def: D, hash: string, rec: R | undefined): void => {
    const approved = rec?.approved
    const approval = approvalOf(hash, approved, server.failClosed)
    const rejected = rejectionOf(rec, hash)
    const facts: ToolFacts = Object.freeze({
      serverEnabled: s.enabled,
      configDenied: kind.configDenied(def),
      serverQuarantined: server.quarantine !== null,
      userDisabled: kind.userDisabled(rec, hash),
      approval,
    })
    const name = kind.nameOf(def)
    const core: ReviewedCore<A> = {
      hash,
      approval,
      ...(approval === 'changed' && approved ? { previous: Object.freeze({ ...approved }) } : {}),
      ...(rejected ? { rejectedAt: rejected.at } : {}),
      facts,
      status: classify(facts),
      operatorHold: server.quarantine === 'config' || server.quarantine === 'organisation',
    }
    out.push({ name, entry: Object.freeze(kind.entry(toolId(s.name, name), def, core)) })
  }
  if (live) {
    for (const { def, hash } of live) push(def, hash, records[toolId(s.name, kind.nameOf(def))])
  } else {
    const prefix = `${s.name}:`
    for (const [id, rec] of Object.entries(records)) {
      if (!id.startsWith(prefix) || !rec.approved) continue
      push(kind.fromRecord(id.slice(prefix.length), rec.approved), rec.approved.hash, rec)
    }
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return out.map((o) => o.entry)
}
