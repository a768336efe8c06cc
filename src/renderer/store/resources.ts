// The resources slice (docs/passthrough.md): each opened server's resources and templates as the core reads
// them from the running server, refetched with its tools, and the user's approve and reject of a
// template that waits (bound to the definition on screen).
import type { StoreApi } from 'zustand/vanilla'
import type { ResourceInfo, TemplateAction } from '../../shared/resources'
import type { AppState } from './store'
import { perServerLoader } from './slice-helpers'
import { createAct } from './act'

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
  const act = createAct(set, get)
  return {
    resources: {},
    resourceErrors: {},
    loadResources: perServerLoader(set, 'resources', 'resourceErrors', (server: string) => get().api.resources(server)),

    templateAction(server, action, uriTemplate, hash) {
      // the change's event reloads this server's resources (and its card): the toast comes with them
      return act(templateKey(server, uriTemplate, action), () => get().api.templateAction(server, action, uriTemplate, hash))
    },
  }
}
