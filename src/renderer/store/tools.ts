// The tools slice: each opened server's tools (refetched when an event names the server) and the
// user's acts on them: enable, disable, approve and reject (bound to the definition on screen), a
// class for a tool without annotations, Approve all.
import type { StoreApi } from 'zustand/vanilla'
import type { ToolInfo } from '../../shared/api'
import type { ApproveAllOptions, ToolAction, ToolActionOptions } from '../../shared/actions'
import type { Variant } from '../../shared/call-variant'
import type { AppState } from './store'
import { createAct } from './act'
import { busyKey, perServerLoader } from './slice-helpers'

export interface ToolsSlice {
  tools: Record<string, ToolInfo[]>
  toolErrors: Record<string, string>
  loadTools(server: string): Promise<void>
  toolAction(server: string, tool: string, action: ToolAction, options?: ToolActionOptions): Promise<void>
  /** The user's class for a tool without annotations, bound to the definition on screen (`hash`). */
  classifyTool(server: string, tool: string, cls: Variant, hash: string): Promise<void>
  /** `options.hashes`: every waiting tool as the window showed it (each changed one's diff was shown and confirmed) */
  approveAll(server: string, options?: ApproveAllOptions): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export function createToolsSlice(set: Set, get: Get): ToolsSlice {
  const act = createAct(set, get)
  const api = () => get().api
  return {
    tools: {},
    toolErrors: {},

    loadTools: perServerLoader(set, 'tools', 'toolErrors', async (server: string) => (await api().tools(server)).tools),

    toolAction(server, tool, action, options) {
      return act(busyKey('tool', server, tool, action), () =>
        options ? api().toolAction(server, tool, action, options) : api().toolAction(server, tool, action),
      )
    },

    classifyTool(server, tool, cls, hash) {
      return act(busyKey('tool', server, tool, 'classify', cls), () => api().classifyTool(server, tool, cls, hash))
    },

    approveAll(server, options) {
      return act(busyKey('approve-all', server), () => (options ? api().approveAll(server, options) : api().approveAll(server)))
    },
  }
}
