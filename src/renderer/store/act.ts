// An action of the window (a button): marked busy so a double click acts once, no refresh of its
// own; its answer shows in the toast once the refresh its events brought is done, so the toast and
// the window tell the same (an action that changed nothing sends no event: its toast shows after
// the live updates' settle time).
import type { StoreApi } from 'zustand/vanilla'
import type { ActionResult } from '../../shared/api'
import type { AppState } from './store'
import type { ToastAction } from './manage'
import { busyMarker } from './slice-helpers'

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

/** Runs `fn` under busy key `key`; `after` runs once the busy mark is cleared; `undo` is the toast's way back. */
export type Act = (key: string, fn: () => Promise<ActionResult>, after?: () => Promise<void>, undo?: ToastAction) => Promise<void>

export function createAct(set: Set, get: Get): Act {
  const busy = busyMarker(set)
  return async (key, fn, after, undo) => {
    if (get().busy[key]) return
    busy(key, true)
    const mark = get().changeMark()
    let result: ActionResult | null = null
    try {
      result = await fn()
    } catch (err) {
      get().reportError(err)
    }
    if (result) {
      await get().afterChange(mark)
      set({ toast: result.message || 'Done.', toastAction: undo ?? null })
    }
    busy(key, false)
    await after?.()
  }
}
