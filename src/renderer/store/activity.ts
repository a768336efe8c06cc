// The Activity view's slice: a page of the activity record for the current filters, older pages
// on request, and each new record from the live `activity` event put on top when it matches.
import type { StoreApi } from 'zustand/vanilla'
import { actorOf, matchesActivity, type ActivityEvent, type ActivityKind, type ActivityQuery, type CallOutcome } from '../../shared/activity'
import type { AppState } from './store'

export interface ActivityFilter {
  agent: string
  kind: '' | ActivityKind
  outcome: '' | CallOutcome
  server: string
}

export interface ActivitySlice {
  /** newest first */
  activity: ActivityEvent[]
  activityLoaded: boolean
  activityFilter: ActivityFilter
  activityCursor: string | null
  activityLoading: boolean
  activityError: string | null
  /** agents and local clients seen, for the filter */
  activityActors: string[]
  selectedActivity: string | null

  loadActivity(): Promise<void>
  loadOlderActivity(): Promise<void>
  setActivityFilter(f: Partial<ActivityFilter>): void
  selectActivity(id: string | null): void
  activityArrived(e: ActivityEvent): void
}

export const ACTIVITY_PAGE = 100
const KEEP = 1000

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export function queryOf(f: ActivityFilter): ActivityQuery {
  return {
    ...(f.agent ? { agent: f.agent } : {}),
    ...(f.kind ? { kind: f.kind } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
    ...(f.server ? { server: f.server } : {}),
  }
}

function withActors(known: string[], events: ActivityEvent[]): string[] {
  const out = new Set(known)
  for (const e of events) if (!(e.kind === 'decision' && e.by !== 'agent')) out.add(actorOf(e))
  return out.size === known.length ? known : [...out].sort()
}

const STATS_DELAY_MS = 400

export function createActivitySlice(set: Set, get: Get): ActivitySlice {
  let seq = 0
  let statsTimer: ReturnType<typeof setTimeout> | null = null
  return {
    activity: [],
    activityLoaded: false,
    activityFilter: { agent: '', kind: '', outcome: '', server: '' },
    activityCursor: null,
    activityLoading: false,
    activityError: null,
    activityActors: [],
    selectedActivity: null,

    async loadActivity() {
      const mine = ++seq
      set({ activityLoading: true })
      try {
        const page = await get().api.activity({ ...queryOf(get().activityFilter), limit: ACTIVITY_PAGE })
        if (mine !== seq) return
        set((s) => ({
          activity: page.events,
          activityCursor: page.next_cursor,
          activityLoaded: true,
          activityError: null,
          activityActors: withActors(s.activityActors, page.events),
        }))
      } catch (err) {
        if (mine === seq) set({ activityError: err instanceof Error ? err.message : String(err) })
      } finally {
        if (mine === seq) set({ activityLoading: false })
      }
    },

    async loadOlderActivity() {
      const cursor = get().activityCursor
      if (!cursor || get().activityLoading) return
      const mine = seq
      set({ activityLoading: true })
      try {
        const page = await get().api.activity({ ...queryOf(get().activityFilter), limit: ACTIVITY_PAGE, cursor })
        if (mine !== seq) return
        set((s) => ({ activity: [...s.activity, ...page.events], activityCursor: page.next_cursor, activityActors: withActors(s.activityActors, page.events) }))
      } catch (err) {
        get().reportError(err)
      } finally {
        if (mine === seq) set({ activityLoading: false })
      }
    },

    setActivityFilter(f) {
      set((s) => ({ activityFilter: { ...s.activityFilter, ...f } }))
      void get().loadActivity()
    },

    selectActivity(id) {
      set({ selectedActivity: id })
    },

    activityArrived(e) {
      if (!get().activityLoaded) return
      // the counters below the table follow what agents do (one refetch per burst)
      if (e.kind !== 'decision' && get().tab === 'activity' && !statsTimer) {
        statsTimer = setTimeout(() => {
          statsTimer = null
          void get().loadStats()
        }, STATS_DELAY_MS)
      }
      const { activity, activityFilter } = get()
      if (activity.some((x) => x.id === e.id)) return
      set((s) => ({ activityActors: withActors(s.activityActors, [e]) }))
      if (!matchesActivity(e, queryOf(activityFilter), Date.now())) return
      set({ activity: [e, ...activity].slice(0, KEEP) })
    },
  }
}
