// The resources slice (docs/passthrough.md): each opened server's resources and templates as the core reads
// them from the running server, refetched with its tools, and the user's approve and reject of a
// template that waits (bound to the definition on screen).
import type { StoreApi } from 'zustand/vanilla'
import type { ResourceInfo, TemplateAction } from '../../shared/resources'
import type { AppState } from './store'
import { busyMarker, messageOf } from './slice-helpers'

export interface ResourcesSlice {
  resources: Record<string, ResourceInfo>
  resourceErrors: Record<string, string>
  loadResources(server: string): Promise<void>
  templateAction(server: string, action: TemplateAction, uriTemplate: string, hash: string): Promise<void>
}

export const templateKey = (server: string, uriTemplate: string, action: string): string => `template\u0000${server}\u0000${uriTemplate}\u0000${action}`

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export function createResourcesSlice(set: Set, get: Get): ResourcesSlice {
  const busy = busyMarker(set)
  return {
    resources: {},
    resourceErrors: {},
    async loadResources(server) {
      try {
        const info = await get().api.resources(server)
        set((s) => {
          const resourceErrors = { ...s.resourceErrors }
          delete resourceErrors[server]
          return { resources: { ...s.resources, [server]: info }, resourceErrors }
        })
      } catch (err) {
        set((s) => ({ resourceErrors: { ...s.resourceErrors, [server]: messageOf(err) } }))
      }
    },

    async templateAction(server, action, uriTemplate, hash) {
      const key = templateKey(server, uriTemplate, action)
      if (get().busy[key]) return
      busy(key, true)
      const mark = get().changeMark()
      try {
        const r = await get().api.templateAction(server, action, uriTemplate, hash)
        // the change's event reloads this server's resources (and its card): the toast comes with them
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
