// `toolgate prompts list [SERVER]` and `toolgate prompts approve|reject|disable|enable
// SERVER:PROMPT [--yes]` (docs/passthrough.md). A prompt waiting for review is printed with what changed
// (the same model as the window: shared/prompt-diff.ts) before it is approved; a changed one is
// asked about on a terminal (--yes for scripts). Approve and reject carry the hash of the
// definition shown, so a prompt that changes again meanwhile is not decided.
import type { Command } from 'commander'
import { ApiError } from '../../shared/api'
import { parseToolId } from '../../shared/ids'
import { PROMPT_ACTIONS, type PromptInfo } from '../../shared/prompts'
import { promptChange } from '../../shared/prompt-diff'
import type { TextPart } from '../../shared/tool-diff'
import { escapeControls } from '../../shared/text'
import { withOperator, type Operator, type Where } from './control-client'
import { UsageError } from './errors'
import { printJson, say } from './output'
import { table } from './print'
import { reviewField, terminalStyle, type Style } from './tool-review'
import { askYes } from './ask-yes'

type W = (o: { config?: string; dataDir?: string }) => Where

function printPrompts(prompts: PromptInfo[], json: boolean): void {
  if (json) return printJson({ prompts })
  if (prompts.length === 0) return say('No known prompts.')
  const rows = [['PROMPT', 'STATUS', 'AGENTS SEE', 'DESCRIPTION']]
  for (const p of prompts) rows.push([escapeControls(p.name), p.status, p.agent_name, escapeControls(p.description.split('\n')[0].slice(0, 60))])
  say(table(rows))
}

/** A prompt under review as text for a terminal: every field that changed, previous and new; upstream text escaped. */
export function formatPromptReview(p: PromptInfo, st: Style): string {
  const c = promptChange(p)
  const changed = p.approval.status === 'changed'
  const lines = [st.strong(`${escapeControls(p.name)} ${changed ? 'changed since you approved it' : 'is new'} (agents would see it as ${p.agent_name})`)]
  const field = (label: string, diff: TextPart[] | null): void => {
    if (diff) lines.push(...reviewField(label, diff, changed, st))
  }
  field('title', c.title)
  field('description', c.description)
  field('arguments', c.arguments)
  field('text without arguments', c.text)
  lines.push(`  definition ${p.approval.hash}`)
  return `${lines.join('\n')}\n`
}

async function findPrompt(op: Operator, server: string, prompt: string): Promise<PromptInfo> {
  const found = (await op.api.prompts(server)).prompts.find((p) => p.prompt === prompt)
  if (!found)
    throw new ApiError(
      'unknown_prompt',
      `server "${server}" has no known prompt "${escapeControls(prompt)}"; run \`toolgate prompts list ${server}\` to see its prompts.`,
      404,
    )
  return found
}

async function approve(op: Operator, server: string, prompt: string, yes: boolean): Promise<void> {
  const p = await findPrompt(op, server, prompt)
  if (p.approval.status !== 'approved') process.stdout.write(formatPromptReview(p, terminalStyle()))
  if (p.approval.status === 'changed' && !yes) {
    if (!process.stdin.isTTY)
      throw new UsageError(
        `${p.name} changed since you approved it (the change is above); nothing was approved. Confirm on a terminal, or pass --yes in a script: toolgate prompts approve ${p.name} --yes`,
      )
    if (!(await askYes(`Approve this new definition of ${p.name}? Agents will get it as shown. [y/N] `))) {
      process.stderr.write('Not approved; nothing changed.\n')
      process.exitCode = 1
      return
    }
  }
  say((await op.api.promptAction(server, prompt, 'approve', { hash: p.approval.hash })).message)
}

/** One line per prompt action for `toolgate prompts --help`. */
const PROMPT_ACTION_HELP: Record<(typeof PROMPT_ACTIONS)[number], string> = {
  approve: 'approve a new or changed SERVER:PROMPT after showing what changed',
  reject: 'reject a new or changed SERVER:PROMPT: it stays off as your decision',
  disable: 'switch SERVER:PROMPT off: agents do not see it',
  enable: 'switch SERVER:PROMPT on again',
}

export function registerPrompts(program: Command, where: (c: Command) => Command, w: W): void {
  const prompts = program.command('prompts').description("the upstream servers' prompts: list, approve, reject, disable, enable")
  where(prompts.command('list [server]'))
    .description("every prompt (or SERVER's) with its status")
    .option('--json', 'print JSON')
    .action(async (server: string | undefined, o) => {
      await withOperator(w(o), async (op) => {
        const names = server ? [server] : (await op.api.servers()).servers.map((s) => s.name)
        const all: PromptInfo[] = []
        for (const n of names) all.push(...(await op.api.prompts(n)).prompts)
        printPrompts(all, o.json === true)
      })
    })
  for (const action of PROMPT_ACTIONS) {
    const cmd = where(prompts.command(`${action} <target>`))
      .description(PROMPT_ACTION_HELP[action])
      .option('-y, --yes', 'do not ask (for scripts; a change is still printed)')
    cmd.action(async (target: string, o) => {
      const ref = parseToolId(target)
      if ('error' in ref)
        throw new UsageError(
          `malformed prompt "${escapeControls(target)}": expected SERVER:PROMPT (e.g. "everything:simple-prompt"); run \`toolgate prompts list\` to see them.`,
        )
      await withOperator(w(o), async (op) => {
        if (action === 'approve') return await approve(op, ref.server, ref.tool, o.yes === true)
        if (action === 'reject') {
          const p = await findPrompt(op, ref.server, ref.tool)
          return say((await op.api.promptAction(ref.server, ref.tool, 'reject', { hash: p.approval.hash })).message)
        }
        say((await op.api.promptAction(ref.server, ref.tool, action)).message)
      })
    })
  }
}
