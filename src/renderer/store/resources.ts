// The resources slice (docs/passthrough.md): each opened server's resources and templates as the core reads
// them from the running server, refetched with its tools.
import type { StoreApi } from 'zustand/vanilla'
import type { ResourceInfo } from '../../shared/resources'
import type { AppState } from './store'
import { messageOf } from './slice-helpers'

export interface ResourcesSlice {
  resources: Record<string, ResourceInfo>
  resourceErrors: Record<string, string>
  loadResources(server: string): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export function createResourcesSlice(set: Set, get: Get): ResourcesSlice {
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
  }
}
