// The questions slice (docs/passthrough.md#questions-asked-in-toolgate): servers' questions that
// the agent's client could not show, refetched as soon as the core says one was added or answered,
// answered with the form's content (checked in the window first, and again by the core), and a
// URL question's page opened only when the user chooses to, in a tab that cannot reach this one.
import type { StoreApi } from 'zustand/vanilla'
import type { Question, QuestionAction } from '../../shared/questions'
import type { AppState } from './store'
import { busyMarker } from './slice-helpers'
import { openInNewTab } from './sign-in'

export interface QuestionsSlice {
  /** the waiting questions, oldest first */
  questions: Question[]
  loadQuestions(): Promise<void>
  /** Resolves true when the core took the answer (false: refused; the error is shown). */
  answerQuestion(id: string, action: QuestionAction, content?: Record<string, unknown>): Promise<boolean>
  /** Opens a URL question's page (the desktop app: the system browser). */
  openQuestionUrl(url: string): void
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

/** The busy key of an answer (one per question: a double click answers once). */
export const questionKey = (id: string): string => `question\u0000${id}`

export function createQuestionsSlice(set: Set, get: Get, openUrl: (url: string) => void = openInNewTab): QuestionsSlice {
  let seq = 0
  const busy = busyMarker(set)
  return {
    questions: [],

    async loadQuestions() {
      const mine = ++seq
      try {
        const { questions } = await get().api.questions()
        if (mine === seq) set({ questions })
      } catch (err) {
        get().reportError(err)
      }
    },

    async answerQuestion(id, action, content) {
      const key = questionKey(id)
      if (get().busy[key]) return false
      busy(key, true)
      const mark = get().changeMark()
      try {
        set({ toast: (await get().api.answerQuestion(id, action, content)).message })
      } catch (err) {
        get().reportError(err)
        // already answered elsewhere, timed out, or refused: the list shows what is left
        await get().loadQuestions()
        return false
      } finally {
        busy(key, false)
      }
      await get().afterChange(mark)
      return true
    },

    openQuestionUrl(url) {
      openUrl(url)
    },
  }
}
