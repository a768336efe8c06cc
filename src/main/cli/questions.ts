// `toolgate questions [list|show ID|answer ID --accept|--decline|--cancel [--content JSON]]`:
// questions of MCP servers that Toolgate asks the user because the agent's client cannot show them
// (docs/passthrough.md), answered from the terminal. Talks to the running Toolgate, which holds them.
import type { Command } from 'commander'
import { ApiError, type Api } from '../../shared/api'
import type { FormField } from '../../shared/elicit-form'
import { askedBy, QUESTION_STATUSES, type Question, type QuestionAction } from '../../shared/questions'
import { withOperatorApi, type Where } from './control-client'
import { UsageError } from './errors'
import { table } from './print'
import { printJson, say } from './output'

const STATUS_FILTER = [...QUESTION_STATUSES, 'all'] as const

function statusText(q: Question, now: number): string {
  if (q.status !== 'pending') return q.status + (q.answered_via ? ` (${q.answered_via})` : '')
  return `waits ${Math.max(0, Math.round((Date.parse(q.expires_at) - now) / 1000))} s`
}

const who = (q: Question): string => q.agent ?? `(no agent${q.client ? `: ${q.client}` : ''})`
const short = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

/** The list as a table; the core made the server's text safe, and the table escapes again. */
export function questionsTable(list: Question[], now: number): string {
  if (list.length === 0) return 'No questions of servers wait for you.\n'
  const rows = [['ID', 'STATUS', 'SERVER', 'AGENT', 'ASKS']]
  for (const q of list) rows.push([q.id, statusText(q, now), q.server, who(q), q.mode === 'url' ? `open ${q.url_host ?? '?'}` : short(q.message, 60)])
  return table(rows)
}

function fieldLine(f: FormField): string {
  const kind =
    f.kind === 'enum' || f.kind === 'multi'
      ? `${f.kind === 'multi' ? 'several of' : 'one of'} ${(f.options ?? []).map((o) => (o.title !== o.value ? `${JSON.stringify(o.value)} (${o.title})` : JSON.stringify(o.value))).join(', ')}`
      : `${f.kind}${f.format ? ` (${f.format})` : ''}`
  const bounds = [
    f.minLength !== undefined ? `min length ${f.minLength}` : '',
    f.maxLength !== undefined ? `max length ${f.maxLength}` : '',
    f.minimum !== undefined ? `min ${f.minimum}` : '',
    f.maximum !== undefined ? `max ${f.maximum}` : '',
  ].filter(Boolean)
  return [
    `  ${JSON.stringify(f.name)}${f.title ? ` — ${f.title}` : ''}: ${kind}${f.required ? ', required' : ''}${bounds.length ? `, ${bounds.join(', ')}` : ''}${f.default !== undefined ? `, default ${JSON.stringify(f.default)}` : ''}`,
    ...(f.description ? [`      ${f.description}`] : []),
  ].join('\n')
}

/** One question in full: who asks, the server's words, the form or the URL, how to answer. */
export function questionText(q: Question, now: number): string {
  const lines = [`${q.id}: ${askedBy(q)}, during ${who(q)}'s call of ${q.tool}`, `status: ${statusText(q, now)}`, `the server's words: ${q.message}`]
  if (q.mode === 'url') {
    lines.push(`it asks you to open a web page on ${q.url_host ?? '?'}:`, `  ${q.url ?? ''}`)
    lines.push(`open it yourself if you trust it, then: toolgate questions answer ${q.id} --accept (or --decline)`)
  } else {
    lines.push('fields:', ...(q.fields ?? []).map(fieldLine))
    lines.push(`answer: toolgate questions answer ${q.id} --accept --content '{"field": "value"}' (or --decline, --cancel)`)
  }
  return lines.join('\n') + '\n'
}

export function registerQuestions(program: Command, where: (c: Command) => Command, w: (o: { config?: string; dataDir?: string }) => Where): void {
  const cmd = program.command('questions').description("questions of MCP servers that the agent's client could not show: list, show, answer")
  const withApi = <T>(o: { config?: string; dataDir?: string }, fn: (api: Api) => Promise<T>) => withOperatorApi(w(o), fn)
  where(cmd.command('list', { isDefault: true }))
    .description('the questions waiting for you (oldest first); --status for answered ones')
    .option('--status <status>', `pending (default) | ${STATUS_FILTER.filter((s) => s !== 'pending').join(' | ')}`)
    .option('--json', 'print JSON')
    .action(async (o: { config?: string; dataDir?: string; status?: string; json?: boolean }) => {
      if (o.status !== undefined && !(STATUS_FILTER as readonly string[]).includes(o.status))
        throw new UsageError(`--status must be one of ${STATUS_FILTER.join(', ')}`)
      const { questions } = await withApi(o, (api) => api.questions(o.status ? { status: o.status as (typeof STATUS_FILTER)[number] } : {}))
      if (o.json) printJson({ questions })
      else say(questionsTable(questions, Date.now()))
    })
  where(cmd.command('show <id>'))
    .description('one question in full: the server that asks, its words, the form or the URL')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { config?: string; dataDir?: string; json?: boolean }) => {
      const { questions } = await withApi(o, (api) => api.questions({ status: 'all' }))
      const q = questions.find((x) => x.id === id)
      if (!q) throw new ApiError('unknown_question', `no question "${id}"; \`toolgate questions list\` shows the waiting ones`, 404)
      if (o.json) printJson(q)
      else say(questionText(q, Date.now()))
    })
  where(cmd.command('answer <id>'))
    .description('answer a question: --accept (with --content for a form), --decline, or --cancel')
    .option('--accept', 'send the answer (a form: the fields in --content)')
    .option('--decline', 'say no to the server')
    .option('--cancel', 'dismiss the question without an answer')
    .option(
      '--content <json>',
      'the whole answer as a JSON object, e.g. \'{"name": "Ada"}\' (a field left out is not sent; without --content: the form as shown, its defaults)',
    )
    .action(async (id: string, o: { config?: string; dataDir?: string; accept?: boolean; decline?: boolean; cancel?: boolean; content?: string }) => {
      const chosen = (['accept', 'decline', 'cancel'] as const).filter((a) => o[a] === true)
      if (chosen.length !== 1) throw new UsageError('say exactly one of --accept, --decline, --cancel')
      const action: QuestionAction = chosen[0]
      let content: Record<string, unknown> | undefined
      if (o.content !== undefined) {
        if (action !== 'accept') throw new UsageError('--content goes with --accept only')
        try {
          content = JSON.parse(o.content) as Record<string, unknown>
        } catch (e) {
          throw new UsageError(`--content is not JSON: ${(e as Error).message}`)
        }
      }
      const r = await withApi(o, (api) => api.answerQuestion(id, action, content))
      say(r.message)
    })
}
