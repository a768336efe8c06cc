// The prompts slice (docs/passthrough.md): each opened server's prompts, refetched with its tools, and the
// user's acts on them (approve and reject bound to the definition on screen).
import type { StoreApi } from 'zustand/vanilla'
import type { PromptAction, PromptActionOptions, PromptInfo } from '../../shared/prompts'
import type { AppState } from './store'
import { messageOf, busyMarker } from './slice-helpers'

export interface PromptsSlice {
  prompts: Record<string, PromptInfo[]>
  promptErrors: Record<string, string>
  loadPrompts(server: string): Promise<void>
  promptAction(server: string, prompt: string, action: PromptAction, options?: PromptActionOptions): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export const promptKey = (server: string, prompt: string, action: string): string => `prompt\u0000${server}\u0000${prompt}\u0000${action}`

export function createPromptsSlice(set: Set, get: Get): PromptsSlice {
  const busy = busyMarker(set)
  return {
    prompts: {},
    promptErrors: {},

    async loadPrompts(server) {
      try {
        const { prompts } = await get().api.prompts(server)
        set((s) => {
          const promptErrors = { ...s.promptErrors }
          delete promptErrors[server]
          return { prompts: { ...s.prompts, [server]: prompts }, promptErrors }
        })
      } catch (err) {
        set((s) => ({ promptErrors: { ...s.promptErrors, [server]: messageOf(err) } }))
      }
    },

    async promptAction(server, prompt, action, options) {
      const key = promptKey(server, prompt, action)
      if (get().busy[key]) return
      busy(key, true)
      const mark = get().changeMark()
      try {
        const r = options ? await get().api.promptAction(server, prompt, action, options) : await get().api.promptAction(server, prompt, action)
        // the change's event reloads this server's prompts (and its card): the toast comes with them
        await get().afterChange(mark)
        set({ toast: r.message || 'Done.', toastAction: null })
      } catch (err) {
        get().reportError(err)
      } finally {
        busy(key, false)
      }
    },
  }
}
