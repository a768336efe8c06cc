// The prompts slice (docs/passthrough.md): each opened server's prompts, refetched with its tools, and the
// user's acts on them (approve and reject bound to the definition on screen).
import type { StoreApi } from 'zustand/vanilla'
import type { PromptAction, PromptActionOptions, PromptInfo } from '../../shared/prompts'
import type { AppState } from './store'
import { perServerLoader } from './slice-helpers'
import { createAct } from './act'

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
  const act = createAct(set, get)
  return {
    prompts: {},
    promptErrors: {},

    loadPrompts: perServerLoader(set, 'prompts', 'promptErrors', async (server: string) => (await get().api.prompts(server)).prompts),

    promptAction(server, prompt, action, options) {
      // the change's event reloads this server's prompts (and its card): the toast comes with them
      return act(promptKey(server, prompt, action), () =>
        options ? get().api.promptAction(server, prompt, action, options) : get().api.promptAction(server, prompt, action),
      )
    },
  }
}
