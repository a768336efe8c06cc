// Questions of MCP servers that Toolgate asks the user itself (docs/passthrough.md): an upstream's
// elicitation whose agent's client cannot show it waits here until the user answers in the
// window, the tray, the CLI or the API. Nothing is answered for the user: no answer in time is
// "cancel", and a question whose call ends is withdrawn. A form answer is checked against the
// requested schema (zod, built from it) before it reaches the server; a URL question shows the URL
// and its host, and Toolgate never opens it (the window opens it only when the user chooses to).
import { ApiError } from '../../../shared/api'
import type { ConfirmVia } from '../../../shared/confirmations'
import { checkContent, formOf, shownDefaults } from '../../../shared/elicit-form'
import { CLIENT_NAME_MAX, safeText } from '../../../shared/requests'
import { checkQuestionUrl, type Question, type QuestionAction, type QuestionFilter, type QuestionStatus } from '../../../shared/questions'
import { PendingDecisions, newId } from './pending'

/** One agent (or one agent-less client) may keep this many questions waiting; more are refused at once. */
export const MAX_QUESTIONS_PER_AGENT = 5
/** All agents together: bounds memory and the window. */
export const MAX_QUESTIONS_TOTAL = 50
const KEEP_ANSWERED = 200
/** The longest URL shown (a longer one is refused: the user could not read where it leads). */
export { MAX_URL_CHARS } from '../../../shared/questions'

/** What the server gets back (MCP ElicitResult). */
export type ElicitAnswer = { action: 'accept'; content?: Record<string, string | number | boolean | string[]> } | { action: 'decline' } | { action: 'cancel' }

type Answer = { answer: ElicitAnswer; via: ConfirmVia }

/** A question as the connection hands it over: the server's text already masked and escaped, not labelled. */
export interface QuestionInput {
  /** the configured name of the server */
  server: string
  agent: string | null
  client: string | null
  /** "server:tool" of the call in flight */
  tool: string
  /** the elicitation/create params (mode, message, requestedSchema or url) */
  params: Record<string, unknown>
}

export interface QuestionsDeps {
  /** seconds a question waits: the server's confirm_timeout_s, else the top level's */
  timeoutS(server: string): number
  /** the SSE event `question` */
  emit(data: { id: string; status: QuestionStatus; new?: boolean }): void
  /** a question ended (answered, timed out, withdrawn): the log and the activity record */
  onSettled?(q: Question): void
  now?(): number
}

/** Why a question was not put to the user; the server gets it as the refusal. */
export class QuestionRefused extends Error {}

export class UserQuestions {
  readonly queue = new PendingDecisions<Question, Answer>((q) => this.settle(q, 'timeout'))

  constructor(private readonly d: QuestionsDeps) {}

  private iso(ms = this.d.now?.() ?? Date.now()): string {
    return new Date(ms).toISOString()
  }

  /** Puts a question to the user; throws QuestionRefused (what to tell the server) when it cannot be shown or a limit is reached. */
  open(input: QuestionInput): Question {
    const p = input.params
    const mode = p.mode === 'url' ? 'url' : 'form'
    const message = typeof p.message === 'string' ? p.message : ''
    let shape: Pick<Question, 'fields' | 'url' | 'url_host'>
    if (mode === 'url') {
      // shown and opened as the URL parser reads it: control, bidi and invisible characters (a
      // terminal escape in `toolgate questions show`, a reversed path in the window) percent-encoded
      const checked = checkQuestionUrl(typeof p.url === 'string' ? p.url : '')
      if ('error' in checked) throw new QuestionRefused(`Toolgate does not show this elicitation to the user: ${checked.error}; nobody was asked.`)
      shape = { url: checked.href, url_host: checked.host }
    } else {
      const form = formOf(p.requestedSchema)
      if ('error' in form) throw new QuestionRefused(`Toolgate cannot show this elicitation to the user: ${form.error}; nobody was asked.`)
      shape = { fields: form.fields }
    }
    const key = input.agent ?? `client:${input.client ?? ''}`
    const waiting = this.queue.pending()
    const mine = waiting.filter((q) => (q.agent ?? `client:${q.client ?? ''}`) === key).length
    if (mine >= MAX_QUESTIONS_PER_AGENT)
      throw new QuestionRefused(`${mine} questions of this agent's calls already wait for the user (at most ${MAX_QUESTIONS_PER_AGENT}); nobody was asked.`)
    if (waiting.length >= MAX_QUESTIONS_TOTAL) throw new QuestionRefused(`${MAX_QUESTIONS_TOTAL} questions already wait for the user; nobody was asked.`)
    const timeoutS = this.d.timeoutS(input.server)
    const now = this.d.now?.() ?? Date.now()
    const q: Question = {
      id: newId('q'),
      server: input.server,
      agent: input.agent,
      client: input.client === null ? null : safeText(input.client, CLIENT_NAME_MAX),
      tool: input.tool,
      mode,
      message,
      ...shape,
      status: 'pending',
      created_at: this.iso(now),
      expires_at: this.iso(now + timeoutS * 1000),
    }
    this.queue.add(q, timeoutS * 1000)
    this.queue.prune(KEEP_ANSWERED)
    this.d.emit({ id: q.id, status: 'pending', new: true })
    return q
  }

  /**
   * Asks and waits for the user's answer. No answer in time, or the user's cancel, is "cancel";
   * the call ending (`signal`) withdraws the question and rejects.
   */
  async ask(input: QuestionInput, signal: AbortSignal): Promise<ElicitAnswer> {
    const q = this.open(input)
    const r = await this.queue.wait(q.id, this.d.timeoutS(input.server) * 1000 + 5000, signal)
    if (r.kind === 'answered') return r.answer.answer
    if (r.kind === 'cancelled') {
      if (this.queue.answer(q.id, { answer: { action: 'cancel' }, via: 'api' })) this.settle(q, 'withdrawn')
      throw new QuestionRefused('the call this question belongs to ended before the user answered.')
    }
    // expired (the user did not answer in time): nothing is answered for the user
    if (this.queue.answer(q.id, { answer: { action: 'cancel' }, via: 'api' })) this.settle(q, 'timeout')
    return { action: 'cancel' }
  }

  /** The user's answer: accept (with content that matches the form), decline or cancel. */
  answer(id: string, action: QuestionAction, content: Record<string, unknown> | undefined, via: ConfirmVia): { question: Question; message: string } {
    const q = this.queue.get(id)
    if (!q) throw new ApiError('unknown_question', `no question "${id}"; run \`toolgate questions list\` to see the waiting ones.`, 404)
    if (!this.queue.isPending(id)) throw new ApiError('question_answered', `question ${id} is already ${q.status}; nothing to do.`, 409)
    let answer: ElicitAnswer
    if (action === 'accept') {
      if (q.mode === 'url') {
        if (content !== undefined) throw new ApiError('invalid_content', `question ${id} asks to open a URL; its answer takes no content.`, 400)
        answer = { action: 'accept' }
      } else {
        // no content: the form as shown, its defaults (SEP-1034); content: the whole answer, nothing put back
        const checked = checkContent(q.fields ?? [], content ?? shownDefaults(q.fields ?? []))
        if (!checked.ok) throw new ApiError('invalid_content', `the answer does not match the form of question ${id}: ${checked.error}. Nothing was sent.`, 400)
        answer = { action: 'accept', content: checked.content }
      }
    } else {
      if (content !== undefined) throw new ApiError('invalid_content', `"${action}" takes no content; only "accept" sends the form.`, 400)
      answer = { action }
    }
    if (!this.queue.answer(id, { answer, via })) throw new ApiError('question_answered', `question ${id} was answered meanwhile; nothing to do.`, 409)
    this.settle(q, action === 'accept' ? 'accepted' : action === 'decline' ? 'declined' : 'cancelled', via)
    const what = action === 'accept' ? 'Sent your answer to' : action === 'decline' ? 'Declined the question of' : 'Dismissed the question of'
    return { question: { ...q }, message: `${what} server "${q.server}".` }
  }

  private settle(q: Question, status: Exclude<QuestionStatus, 'pending'>, via?: ConfirmVia): void {
    q.status = status
    q.answered_at = this.iso()
    if (via) q.answered_via = via
    this.d.emit({ id: q.id, status })
    this.d.onSettled?.({ ...q })
  }

  /** GET /api/v1/questions: the waiting ones by default, oldest first. */
  list(filter: QuestionFilter = {}): Question[] {
    const status = filter.status ?? 'pending'
    return this.queue
      .all()
      .filter((q) => status === 'all' || q.status === status)
      .map((q) => ({ ...q }))
  }

  /** Toolgate stops: every waiting question is withdrawn. */
  close(): void {
    this.queue.close()
  }
}
