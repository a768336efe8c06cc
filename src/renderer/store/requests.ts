// The requests slice (docs/requests.md): agents' access requests, newest first, refetched when the
// core says one was added or answered, and the user's grant (bound to what the review showed) or deny.
import type { StoreApi } from 'zustand/vanilla'
import { ApiError } from '../../shared/api'
import type { GrantOptions } from '../../shared/actions'
import type { AccessRequest } from '../../shared/requests'
import type { AppState } from './store'
import { createAct } from './act'
import { busyKey } from './slice-helpers'

export interface RequestsSlice {
  /** agents' access requests, newest first */
  requests: AccessRequest[]
  loadRequests(): Promise<void>
  /** `options.hash`: what the review showed: the launch_hash when the grant acts on the server, the tool's definition hash when it acts on the tool */
  grantRequest(id: string, grantFor: string, options?: GrantOptions): Promise<void>
  denyRequest(id: string): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export function createRequestsSlice(set: Set, get: Get): RequestsSlice {
  const act = createAct(set, get)
  const api = () => get().api
  return {
    requests: [],

    async loadRequests() {
      try {
        const { requests } = await api().requests()
        set({ requests })
      } catch (err) {
        // an older core without requests, or a transient failure: the next event retries
        if (err instanceof ApiError && err.status === 401) set({ authError: err })
      }
    },

    grantRequest(id, grantFor, options) {
      return act(busyKey('request', id), () => (options ? api().grantRequest(id, grantFor, options) : api().grantRequest(id, grantFor)))
    },

    denyRequest(id) {
      return act(busyKey('request', id), () => api().denyRequest(id))
    },
  }
}
