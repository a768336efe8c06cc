// `toolgate tools diff SERVER:TOOL` and `toolgate tools approve SERVER:TOOL` (issue 14): the diff
// prints what changed; approving a changed tool shows that diff first and asks on a terminal
// (`--yes` for scripts; without a terminal and without --yes it refuses, exit 2). Approve carries
// the hash of the definition shown, so a tool that changes again meanwhile is not approved.
import { createInterface } from 'node:readline/promises'
import { ApiError, type ToolInfo } from '../../shared/api'
import { escapedName } from '../../shared/tool-name'
import type { Operator } from './control-client'
import { UsageError } from './errors'
import { say } from './output'
import { formatReview, terminalStyle } from './tool-review'

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

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^(y|yes)$/i.test((await rl.question(question)).trim())
  } finally {
    rl.close()
  }
}

export async function approveReviewed(op: Operator, ref: Ref, o: { yes?: boolean; for?: string }): Promise<void> {
  const t = await findTool(op, ref)
  if (t.approval.status === 'changed') {
    process.stdout.write(formatReview(t, terminalStyle()))
    if (!o.yes) {
      if (!process.stdin.isTTY) {
        throw new UsageError(
          `${t.name} changed since you approved it (the change is above); nothing was approved. Approve it on a terminal to confirm, or pass --yes in a script: toolgate tools approve ${t.name} --yes`,
        )
      }
      if (!(await confirm(`Approve this new definition of ${t.name}? Agents will see and call it as shown. [y/N] `))) {
        process.stderr.write('Not approved; nothing changed.\n')
        process.exitCode = 1
        return
      }
    }
  }
  say((await op.api.toolAction(ref.server, ref.tool, 'approve', { hash: t.approval.hash, ...(o.for ? { for: o.for } : {}) })).message)
}
