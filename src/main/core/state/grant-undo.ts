// What a time-boxed grant changed, kept in state.json beside the change itself (docs/requests.md): each
// decision made "for 1h" records how to undo it in the same state update, a permanent decision on
// the same thing drops that undo (the user decided for good), and at expiry the undo puts the
// previous state back. Pure functions over the State; the keeper (keeper.ts) runs them on time.
import type { TimedGrantInfo } from '../../../shared/api'
import type { Grant, GrantUndo, ServerRecord, State } from './schema'

/** A decision that ends: the grant it belongs to and when it ends. */
export interface TimedAct {
  id: string
  until: string
  request_id?: string
}

type UndoKey = Pick<GrantUndo, 'type'> & { tool?: string }

function sameTarget(u: GrantUndo, key: UndoKey): boolean {
  return u.type === key.type && (!('tool' in u) || u.tool === key.tool)
}

/** The undo that would put `key` of `server` back, if a running grant holds one. */
export function findUndo(s: Readonly<State>, server: string, key: UndoKey): { grant: Grant; undo: GrantUndo } | null {
  for (const g of s.grants ?? []) {
    if (g.kind !== 'timed' || g.server !== server) continue
    const undo = g.undo.find((u) => sameTarget(u, key))
    if (undo) return { grant: g, undo }
  }
  return null
}

/**
 * Records how to undo an act in the grant `t` (created when missing). When another grant already
 * holds an undo for the same thing, it moves to `t` with its original previous state: granting
 * again extends the time, and the end still restores what was there before the first grant.
 */
export function addUndo(s: State, t: TimedAct, server: string, undo: GrantUndo): void {
  const key: UndoKey = { type: undo.type, ...('tool' in undo ? { tool: undo.tool } : {}) }
  const held = findUndo(s, server, key)
  if (held) removeUndo(s, held.grant, held.undo)
  s.grants ??= []
  let g = s.grants.find((x) => x.id === t.id)
  if (!g) {
    g = {
      id: t.id,
      kind: 'timed',
      server,
      until: t.until,
      created_at: new Date().toISOString(),
      ...(t.request_id ? { request_id: t.request_id } : {}),
      undo: [],
    }
    if (key.tool !== undefined) g.tool = key.tool
    s.grants.push(g)
  }
  g.undo.push(held ? held.undo : undo)
}

/** A permanent decision on `key` of `server`: no grant puts it back any more. True when one did. */
export function dropUndo(s: State, server: string, key: UndoKey): boolean {
  const held = findUndo(s, server, key)
  if (!held) return false
  removeUndo(s, held.grant, held.undo)
  return true
}

function removeUndo(s: State, g: Grant, undo: GrantUndo): void {
  g.undo = g.undo.filter((u) => u !== undo)
  if (g.undo.length === 0) s.grants = s.grants.filter((x) => x !== g)
}

/** The server record fields a server approval changes (and its undo restores). */
const REVIEW_FIELDS = ['approved_identity', 'user_quarantined', 'needs_review', 'baseline_taken'] as const

export function reviewRecord(rec: ServerRecord | undefined): ServerRecord | null {
  if (!rec) return null
  const out: ServerRecord = {}
  for (const f of REVIEW_FIELDS) if (rec[f] !== undefined) (out as Record<string, unknown>)[f] = rec[f]
  return out
}

/** Puts back what the state-held undos of `g` record (the config's `enabled` is written by the keeper). */
export function applyStateUndo(s: State, g: Grant): void {
  for (const u of [...g.undo].reverse()) {
    switch (u.type) {
      case 'server_review': {
        const rec: Record<string, unknown> = { ...s.servers[g.server] }
        for (const f of REVIEW_FIELDS) delete rec[f]
        s.servers[g.server] = { ...rec, ...(u.previous ?? {}) }
        if (u.held && s.fail_closed && !s.fail_closed.hold?.includes(g.server)) s.fail_closed.hold = [...(s.fail_closed.hold ?? []), g.server]
        break
      }
      case 'tool_enabled': {
        const id = `${g.server}:${u.tool}`
        s.tools[id] = { ...s.tools[id], user_disabled: true }
        break
      }
      case 'tool_approval': {
        const id = `${g.server}:${u.tool}`
        const rec = { ...s.tools[id] }
        if (u.previous) rec.approved = u.previous
        else delete rec.approved
        s.tools[id] = rec
        break
      }
      case 'server_enabled':
        break
    }
  }
}

/** The locks a grant's end would bring back, applied at once (fail closed: the state was lost). */
export function grantLocks(into: State, from: Readonly<State>): void {
  for (const g of from.grants ?? []) {
    if (g.kind !== 'timed') continue
    for (const u of g.undo) {
      if (u.type === 'tool_enabled') into.tools[`${g.server}:${u.tool}`] = { ...into.tools[`${g.server}:${u.tool}`], user_disabled: true }
      if (u.type === 'server_review' && u.previous?.user_quarantined) into.servers[g.server] = { ...into.servers[g.server], user_quarantined: true }
      if (u.type === 'server_review' && u.previous?.needs_review) into.servers[g.server] = { ...into.servers[g.server], needs_review: true }
    }
    // the config's enabled is written back at the grant's end: keep that part of the grant
    const config = g.undo.filter((u) => u.type === 'server_enabled')
    if (config.length) into.grants = [...(into.grants ?? []), { ...g, undo: config }]
  }
}

const THEN: Record<GrantUndo['type'], string> = {
  server_enabled: 'switched off again',
  server_review: 'back in quarantine',
  tool_enabled: 'switched off again',
  tool_approval: 'back to review',
}

/** The running time-boxed grant on a server (tool undefined) or a tool, as the control API shows it. */
export function timedGrantOf(s: Readonly<State>, server: string, tool?: string): TimedGrantInfo | undefined {
  for (const g of s.grants ?? []) {
    if (g.kind !== 'timed' || g.server !== server) continue
    const mine = g.undo.filter((u) => (tool === undefined ? !('tool' in u) : 'tool' in u && u.tool === tool))
    if (mine.length) return { id: g.id, until: g.until, then: mine.map((u) => THEN[u.type]).join(', ') }
  }
  return undefined
}
