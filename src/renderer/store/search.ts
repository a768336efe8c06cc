// The search panel's slice: it calls the very function behind retrieve_tools and keeps the
// raw JSON text it got, so the UI can show exactly what an agent would receive.
import type { StoreApi } from 'zustand/vanilla'
import type { AppState } from './store'

export interface SearchSlice {
  query: string
  includeLocked: boolean
  limit: number
  showRaw: boolean
  /** the raw JSON text of the last answer, and the arguments that produced it */
  result: { text: string; query: string; includeLocked: boolean; limit: number } | null
  searching: boolean
  searchError: string | null

  setQuery(query: string): void
  setIncludeLocked(on: boolean): void
  setLimit(limit: number): void
  setShowRaw(on: boolean): void
  runSearch(): Promise<void>
  rerunSearch(): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export function createSearchSlice(set: Set, get: Get, _store: StoreApi<AppState>): SearchSlice {
  let seq = 0
  return {
    query: '',
    includeLocked: false,
    limit: 15,
    showRaw: false,
    result: null,
    searching: false,
    searchError: null,

    setQuery(query) {
      set({ query })
    },
    setIncludeLocked(on) {
      set({ includeLocked: on })
      if (get().query.trim()) void get().runSearch()
    },
    setLimit(limit) {
      set({ limit })
      if (get().query.trim()) void get().runSearch()
    },
    setShowRaw(on) {
      set({ showRaw: on })
    },

    async runSearch() {
      const { api, query, includeLocked, limit } = get()
      const q = query.trim()
      const mine = ++seq
      if (!q) {
        set({ result: null, searching: false, searchError: null })
        return
      }
      set({ searching: true })
      try {
        const text = await api.search({ query: q, limit, include_disabled: includeLocked })
        if (mine !== seq) return
        set({ result: { text, query: q, includeLocked, limit }, searching: false, searchError: null })
      } catch (err) {
        if (mine !== seq) return
        set({ searching: false, searchError: err instanceof Error ? err.message : String(err) })
      }
    },

    /** after a change in the core: repeat the last search so results stay live */
    async rerunSearch() {
      if (get().result) await get().runSearch()
    },
  }
}
