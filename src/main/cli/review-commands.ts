// `toolgate tools diff SERVER:TOOL`, `toolgate tools approve SERVER:TOOL`, the tool
// review of `toolgate requests grant` and `toolgate tools classify`: the diff prints
// what changed; approving (or granting) a changed tool shows that diff first and asks on a
// terminal (`--yes` for scripts; without a terminal and without --yes it refuses, exit 2). Each
// carries the hash of the definition shown, so a tool that changes again meanwhile is not decided.
import { ApiError, type ToolInfo } from '../../shared/api'
import { escapedName } from '../../shared/tool-name'
import type { Variant } from '../../shared/call-variant'
import type { Operator } from './control-client'
import { UsageError } from './errors'
import { say } from './output'
import { formatReview, terminalStyle } from './tool-review'
import { askYes } from './ask-yes'

type Ref = { server: string; tool: string }

async function findTool(op: Operator, ref: Ref): Promise<ToolInfo> {
  const { tools } = await op.api.tools(ref.server)
  const t = tools.find((x) => x.tool === ref.tool)
  if (!t)
    throw new ApiError(
      'unknown_tool',
      `server "${ref.server}" has no known tool "${escapedName(ref.tool)}"; run \`toolgate tools list ${ref.server}\` to see its tools.`,
      404,
    )
  return t
}

export async function toolDiff(op: Operator, ref: Ref): Promise<void> {
  process.stdout.write(formatReview(await findTool(op, ref), terminalStyle()))
}

/**
 * A changed tool's review on the terminal: prints what changed and asks; with --yes it only prints.
 * Without a terminal and without --yes it refuses (exit 2) with `retry` as the way to confirm.
 * False when the user answered no (nothing was decided; exit code 1). `done`: "approved", "granted".
 */
async function confirmChange(t: ToolInfo, o: { yes?: boolean }, ask: { question: string; retry: string; done: string }): Promise<boolean> {
  if (t.approval.status !== 'changed') return true
  process.stdout.write(formatReview(t, terminalStyle()))
  if (o.yes) return true
  if (!process.stdin.isTTY) {
    throw new UsageError(
      `${t.name} changed since you approved it (the change is above); nothing was ${ask.done}. Confirm on a terminal, or pass --yes in a script: ${ask.retry}`,
    )
  }
  if (await askYes(ask.question)) return true
  process.stderr.write(`Not ${ask.done}; nothing changed.\n`)
  process.exitCode = 1
  return false
}

export async function approveReviewed(op: Operator, ref: Ref, o: { yes?: boolean; for?: string }): Promise<void> {
  const t = await findTool(op, ref)
  const question = `Approve this new definition of ${t.name}? Agents will see and call it as shown. [y/N] `
  if (!(await confirmChange(t, o, { question, retry: `toolgate tools approve ${t.name} --yes`, done: 'approved' }))) return
  say((await op.api.toolAction(ref.server, ref.tool, 'approve', { hash: t.approval.hash, ...(o.for ? { for: o.for } : {}) })).message)
}

/**
 * `toolgate requests grant ID` without --hash: a grant that acts on a tool is bound to its
 * definition as fetched here, and a changed tool's change is printed and asked about first (as
 * `tools approve` does). A grant that acts on a server is bound with --hash (its launch_hash).
 */
export async function grantReviewed(op: Operator, id: string, o: { for: string; hash?: string; yes?: boolean }): Promise<void> {
  let hash = o.hash
  if (hash === undefined) {
    const req = (await op.api.requests({ status: 'pending' })).requests.find((r) => r.id === id)
    if (req?.definition_hash !== undefined) {
      const t = await findTool(op, { server: req.server, tool: req.tool })
      const question = `Allow ${req.agent ?? 'this session'} to use this new definition of ${t.name}? [y/N] `
      if (!(await confirmChange(t, o, { question, retry: `toolgate requests grant ${id} --for ${o.for} --yes`, done: 'granted' }))) return
      hash = t.approval.hash
    }
  }
  say((await (hash ? op.api.grantRequest(id, o.for, { hash }) : op.api.grantRequest(id, o.for))).message)
}

/**
 * `toolgate tools classify SERVER:TOOL CLASS [--hash H]`: classifies the definition reviewed (its
 * hash from --hash), or the one listed now, which is printed first so the user sees what the class
 * is given to. A changed tool answers definition_changed (nothing classified).
 */
export async function classifyReviewed(op: Operator, ref: Ref, cls: Variant, hash?: string): Promise<void> {
  const t = await findTool(op, ref)
  if (hash === undefined) {
    const what = (t.description ?? '').split('\n')[0].slice(0, 120)
    say(
      `${t.name}${what ? `: ${what}` : ''}\n    ${t.annotations_missing ? 'its server gives no annotations' : `its annotations: ${JSON.stringify(t.annotations ?? {})}`}; definition ${t.approval.hash}`,
    )
  }
  say((await op.api.classifyTool(ref.server, ref.tool, cls, hash ?? t.approval.hash)).message)
}

/**
 * `toolgate tools approve SERVER --all`: the new tools are approved together; every changed tool
 * (or one whose approval was lost with the state) shows its change first and is asked about on
 * a terminal (--yes for scripts; refused without a terminal). Sends the hash of every definition
 * shown, so a tool that changes meanwhile is not approved.
 */
export async function approveAllReviewed(op: Operator, server: string, o: { yes?: boolean }): Promise<void> {
  const { tools } = await op.api.tools(server)
  const waiting = tools.filter((t) => t.approval.status !== 'approved' && t.approval.rejected_at === undefined)
  const changed = waiting.filter((t) => t.approval.status === 'changed' || t.approval.status === 'unknown')
  if (changed.length && !o.yes && !process.stdin.isTTY) {
    for (const t of changed) process.stdout.write(formatReview(t, terminalStyle()))
    throw new UsageError(
      `${changed.map((t) => t.name).join(', ')} changed since you approved ${changed.length === 1 ? 'it' : 'them'} (or lost the approval; the changes are above); nothing was approved. ` +
        `Approve on a terminal to confirm each, or pass --yes in a script: toolgate tools approve ${server} --all --yes`,
    )
  }
  const hashes: Record<string, string> = {}
  for (const t of waiting) {
    if (changed.includes(t)) {
      process.stdout.write(formatReview(t, terminalStyle()))
      if (!o.yes && !(await askYes(`Approve this new definition of ${t.name}? Agents will see and call it as shown. [y/N] `))) {
        process.stderr.write(`Not approved: ${t.name}.\n`)
        process.exitCode = 1
        continue
      }
    }
    hashes[t.tool] = t.approval.hash
  }
  if (waiting.length && Object.keys(hashes).length === 0) {
    process.stderr.write('Nothing approved.\n')
    return
  }
  say((await op.api.approveAll(server, { hashes })).message)
}
