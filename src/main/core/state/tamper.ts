// Whether a state.json that parses was replaced or emptied behind Toolgate's back.
// Toolgate writes state.json and its last good copy with the same text after every change, so at
// start they differ only after a crash between the two writes or an outside write. Each write
// carries the SHA-256 of the text written before it (prev_sha256): a state.json whose predecessor
// is exactly its last good copy is the crash, one acknowledged change ahead, and is taken as it is. A state that
// lost decisions its last good copy holds (approvals, a server's baseline, the user's locks, a
// running grant's undo, the fail-closed mark) must not be taken as it is: the next tool list would
// become the new baseline and a rug-pulled tool callable. Nor one that holds no decision at all
// while there is evidence there were some (an unreadable last good copy; catalog.json showing
// servers that ran, which takes a baseline). The store then fails closed like for an unreadable file.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { parseOnce } from '../../../shared/parse-once'
import path from 'node:path'
import { stateSchema, type State } from './schema'
import { serversThatRan } from './last-catalog'

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

/** The user's decisions in `before` that `now` no longer holds, in words (empty when none are lost). */
export function lostDecisions(now: Readonly<State>, before: Readonly<State>): string[] {
  const baselines: string[] = []
  const approvedServers: string[] = []
  const serverLocks: string[] = []
  for (const [name, rec] of Object.entries(before.servers)) {
    const n = now.servers[name]
    if (
      (rec.baseline_taken && !n?.baseline_taken) ||
      (rec.prompt_baseline_taken && !n?.prompt_baseline_taken) ||
      (rec.template_baseline_taken && !n?.template_baseline_taken)
    )
      baselines.push(name)
    if (rec.approved_identity && !n?.approved_identity) approvedServers.push(name)
    if ((rec.user_quarantined && !n?.user_quarantined) || (rec.needs_review && !n?.needs_review) || (rec.confirm && !n?.confirm)) serverLocks.push(name)
  }
  let approvals = 0
  let toolLocks = 0
  for (const [id, rec] of Object.entries(before.tools)) {
    const n = now.tools[id]
    if (rec.approved && !n?.approved) approvals++
    const rejected = new Set((n?.rejected ?? []).map((r) => r.hash))
    if ((rec.user_disabled && !n?.user_disabled) || (rec.confirm && !n?.confirm) || (rec.rejected ?? []).some((r) => !rejected.has(r.hash))) toolLocks++
  }
  let promptApprovals = 0
  let promptLocks = 0
  for (const [id, rec] of Object.entries(before.prompts ?? {})) {
    const n = now.prompts?.[id]
    if (rec.approved && !n?.approved) promptApprovals++
    const rejected = new Set((n?.rejected ?? []).map((r) => r.hash))
    if ((rec.user_disabled && !n?.user_disabled) || (rec.rejected ?? []).some((r) => !rejected.has(r.hash))) promptLocks++
  }
  let templateApprovals = 0
  let templateLocks = 0
  for (const [id, rec] of Object.entries(before.resource_templates ?? {})) {
    const n = now.resource_templates?.[id]
    if (rec.approved && !n?.approved) templateApprovals++
    const rejected = new Set((n?.rejected ?? []).map((r) => r.hash))
    if ((rec.rejected ?? []).some((r) => !rejected.has(r.hash))) templateLocks++
  }
  const grants = new Set((now.grants ?? []).map((g) => g.id))
  const endings = (before.grants ?? []).filter((g) => g.kind === 'timed' && !grants.has(g.id)).length
  const lost: string[] = []
  if (baselines.length) lost.push(`the baseline of ${baselines.join(', ')}`)
  if (approvedServers.length) lost.push(`the approval of server ${approvedServers.join(', ')}`)
  if (approvals) lost.push(plural(approvals, 'tool approval'))
  if (promptApprovals) lost.push(plural(promptApprovals, 'prompt approval'))
  if (templateApprovals) lost.push(plural(templateApprovals, 'resource template approval'))
  if (serverLocks.length) lost.push(`the locks of server ${serverLocks.join(', ')}`)
  if (toolLocks) lost.push(`the locks of ${plural(toolLocks, 'tool')}`)
  if (promptLocks) lost.push(`the locks of ${plural(promptLocks, 'prompt')}`)
  if (templateLocks) lost.push(`the rejections of ${plural(templateLocks, 'resource template')}`)
  if (endings) lost.push(`the end of ${plural(endings, 'time-boxed grant')}`)
  if (before.fail_closed && !now.fail_closed) lost.push('its fail-closed mark')
  return lost
}

/** Whether a state holds a decision that lets something run (a server approval or baseline, a tool approval), or the fail-closed mark. */
export function holdsDecisions(s: Readonly<State>): boolean {
  if (s.fail_closed) return true
  if (Object.values(s.servers).some((r) => r.baseline_taken || r.prompt_baseline_taken || r.template_baseline_taken || r.approved_identity)) return true
  return (
    Object.values(s.tools).some((r) => r.approved !== undefined) ||
    Object.values(s.prompts ?? {}).some((r) => r.approved !== undefined) ||
    Object.values(s.resource_templates ?? {}).some((r) => r.approved !== undefined)
  )
}

/** The SHA-256 (hex) of a state file's text, as `prev_sha256` carries it. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** A file's text, or null when it cannot be read (missing, a directory, no permission). */
export function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

/**
 * Why the state read from `file` (it parsed) cannot be trusted as it is, or null when it can:
 * it lost decisions its last good copy `backupFile` holds, or it holds none while the last good
 * copy is unreadable or catalog.json shows servers that ran.
 */
export function replacedStateProblem(state: Readonly<State>, file: string, backupFile: string): string | null {
  const text = readText(file)
  const backupText = fs.existsSync(backupFile) ? readText(backupFile) : null
  // a crash between the two writes: state.json is the write right after its last good copy
  const oneWriteAhead = backupText !== null && state.prev_sha256 === sha256(backupText)
  if (backupText !== null && backupText !== text && !oneWriteAhead) {
    let backup: State | null = null
    let problem = ''
    try {
      const parsed = parseOnce(stateSchema(), JSON.parse(backupText))
      if (parsed.success) backup = parsed.data
      else problem = parsed.error.issues[0].message
    } catch (e) {
      problem = (e as Error).message
    }
    if (backup) {
      const lost = lostDecisions(state, backup)
      if (lost.length) return `it parses, but lost what its last good copy holds: ${lost.join('; ')}`
    } else if (!holdsDecisions(state)) {
      return `it parses but holds no decisions, while its last good copy ${backupFile} is unreadable (${problem})`
    }
  }
  const ran = holdsDecisions(state) ? null : ranWithoutDecisions(path.dirname(file))
  return ran ? `it parses but holds no decisions, while ${ran}` : null
}

/** The servers catalog.json shows as having run, in words ("a, b ran before (…)"), or null when none did. */
export function ranWithoutDecisions(dataDir: string): string | null {
  const ran = serversThatRan(dataDir)
  return ran.length ? `${ran.join(', ')} ran before (catalog.json lists the tools they served, which took their baseline)` : null
}
