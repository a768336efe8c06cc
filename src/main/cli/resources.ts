// `toolgate resources list [SERVER] [--json]` and `toolgate resources approve|reject SERVER
// URI_TEMPLATE [--yes]` (docs/passthrough.md "Resources"): a server's resources and templates, and
// the user's decision on a template that waits for review. A waiting template is printed (what
// agents would read of it, and for a changed one what was approved) before it is approved; a
// changed one is asked about on a terminal (--yes for scripts). Approve and reject carry the hash
// of the definition shown, so a template that changes again meanwhile is not decided.
import type { Command } from 'commander'
import { ApiError } from '../../shared/api'
import { TEMPLATE_ACTIONS, type ResourceInfo, type ResourceTemplateEntry } from '../../shared/resources'
import { escapeControls } from '../../shared/text'
import { openOperator, type Operator, type Where } from './control-client'
import { UsageError } from './errors'
import { printJson, say } from './output'
import { table } from './print'
import { reviewField, terminalStyle, type Style } from './tool-review'
import { templateChange } from '../../shared/template-diff'
import { askYes } from './ask-yes'

type W = (o: { config?: string; dataDir?: string }) => Where

const oneLine = (s: string | undefined, max = 60): string => escapeControls((s ?? '').slice(0, max))

function printResources(all: ResourceInfo[], json: boolean): void {
  if (json) return printJson({ servers: all })
  const rows = [['SERVER', 'KIND', 'URI', 'STATUS', 'NAME']]
  for (const info of all) {
    for (const r of info.resources) rows.push([info.server, 'resource', oneLine(r.uri, 80), '', oneLine(r.title ?? r.name)])
    for (const t of info.templates) rows.push([info.server, 'template', oneLine(t.uriTemplate, 80), t.status ?? '', oneLine(t.title ?? t.name)])
  }
  if (rows.length === 1) return say(all.map((i) => `${i.server}: ${i.note ?? 'no resources'}`).join('\n'))
  say(table(rows))
}

/**
 * A template under review as text for a terminal: every field its approval hash covers that is new
 * or changed (annotations and `_meta` as JSON), previous and new, from the window's model
 * (shared/template-diff.ts); upstream text escaped.
 */
export function formatTemplateReview(server: string, t: ResourceTemplateEntry, st: Style): string {
  const changed = t.approval?.previous !== undefined
  const lines = [st.strong(`${server}: the resource template ${escapeControls(t.uriTemplate)} ${changed ? 'changed since you approved it' : 'is new'}`)]
  for (const c of templateChange(t)) lines.push(...reviewField(c.label, c.diff, changed, st, c.code))
  lines.push(`  definition ${t.approval?.hash ?? '(none)'}`)
  return `${lines.join('\n')}\n`
}

async function findTemplate(op: Operator, server: string, uriTemplate: string): Promise<ResourceTemplateEntry & { approval: { hash: string } }> {
  const info = await op.api.resources(server)
  const found = info.templates.find((t) => t.uriTemplate === uriTemplate)
  if (!found || !found.approval)
    throw new ApiError(
      'unknown_template',
      `server "${server}" lists no resource template "${escapeControls(uriTemplate)}"${info.note ? ` (${info.note})` : ''}; run \`toolgate resources list ${server}\` to see its templates.`,
      404,
    )
  return found as ResourceTemplateEntry & { approval: { hash: string } }
}

async function approve(op: Operator, server: string, uriTemplate: string, yes: boolean): Promise<void> {
  const t = await findTemplate(op, server, uriTemplate)
  if (t.status !== 'callable') process.stdout.write(formatTemplateReview(server, t, terminalStyle()))
  if (t.approval.previous && !yes) {
    if (!process.stdin.isTTY)
      throw new UsageError(
        `the resource template ${server}:${escapeControls(uriTemplate)} changed since you approved it (the change is above); nothing was approved. Confirm on a terminal, or pass --yes in a script.`,
      )
    if (!(await askYes('Approve this new definition? Agents will read it as shown. [y/N] '))) {
      process.stderr.write('Not approved; nothing changed.\n')
      process.exitCode = 1
      return
    }
  }
  say((await op.api.templateAction(server, 'approve', uriTemplate, t.approval.hash)).message)
}

const HELP: Record<(typeof TEMPLATE_ACTIONS)[number], string> = {
  approve: "approve a new or changed resource template of SERVER (the server's own URI_TEMPLATE) after showing it",
  reject: 'reject a new or changed resource template of SERVER: agents do not get it as your decision',
}

export function registerResources(program: Command, where: (c: Command) => Command, w: W): void {
  const resources = program.command('resources').description("the upstream servers' resources and resource templates: list, approve, reject")
  where(resources.command('list [server]'))
    .description("every running server's (or SERVER's) resources and templates, templates with their status")
    .option('--json', 'print JSON')
    .action(async (server: string | undefined, o) => {
      const op = await openOperator(w(o))
      try {
        const names = server ? [server] : (await op.api.servers()).servers.map((s) => s.name)
        const all: ResourceInfo[] = []
        for (const n of names) all.push(await op.api.resources(n))
        printResources(all, o.json === true)
      } finally {
        await op.close()
      }
    })
  for (const action of TEMPLATE_ACTIONS) {
    where(resources.command(`${action} <server> <uri_template>`))
      .description(HELP[action])
      .option('-y, --yes', 'do not ask (for scripts; a change is still printed)')
      .action(async (server: string, uriTemplate: string, o) => {
        const op = await openOperator(w(o))
        try {
          if (action === 'approve') return await approve(op, server, uriTemplate, o.yes === true)
          const t = await findTemplate(op, server, uriTemplate)
          say((await op.api.templateAction(server, 'reject', uriTemplate, t.approval.hash)).message)
        } finally {
          await op.close()
        }
      })
  }
}
