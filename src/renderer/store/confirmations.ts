// The confirmations slice (docs/confirmations.md): the calls that wait for the user's OK, refetched as soon as
// the core says one was added or answered, and the user's "Ask me before each call" switches.
import type { StoreApi } from 'zustand/vanilla'
import type { Confirmation } from '../../shared/confirmations'
import type { AppState } from './store'
import { busyMarker } from './slice-helpers'

export interface ConfirmationsSlice {
  /** the waiting calls, oldest first */
  confirmations: Confirmation[]
  loadConfirmations(): Promise<void>
  answerConfirmation(id: string, answer: 'allow' | 'deny'): Promise<void>
  setAskBeforeCall(server: string, tool: string | null, ask: boolean): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

/** The busy key of an answer (one per confirmation: a double click answers once). */
export const answerKey = (id: string): string => `confirmation\u0000${id}`
export const askKey = (server: string, tool: string | null): string => `ask\u0000${server}\u0000${tool ?? ''}`

export function createConfirmationsSlice(set: Set, get: Get): ConfirmationsSlice {
  let seq = 0
  const busy = busyMarker(set)
  return {
    confirmations: [],

    async loadConfirmations() {
      const mine = ++seq
      try {
        const { confirmations } = await get().api.confirmations()
        if (mine === seq) set({ confirmations })
      } catch (err) {
        get().reportError(err)
      }
    },

    async answerConfirmation(id, answer) {
      const key = answerKey(id)
      if (get().busy[key]) return
      busy(key, true)
      const mark = get().changeMark()
      try {
        // where it was answered (web UI, window) is the core's to record, from the connection
        const r = answer === 'allow' ? await get().api.allowConfirmation(id) : await get().api.denyConfirmation(id)
        set({ toast: r.message })
      } catch (err) {
        get().reportError(err)
        // already answered elsewhere, or gone: the list shows what is left
        await get().loadConfirmations()
        return
      } finally {
        busy(key, false)
      }
      await get().afterChange(mark)
    },

    async setAskBeforeCall(server, tool, ask) {
      const key = askKey(server, tool)
      if (get().busy[key]) return
      busy(key, true)
      const mark = get().changeMark()
      try {
        set({ toast: (await get().api.setAskBeforeCall(server, tool, ask)).message })
      } catch (err) {
        get().reportError(err)
        return
      } finally {
        busy(key, false)
      }
      await get().afterChange(mark)
    },
  }
}
