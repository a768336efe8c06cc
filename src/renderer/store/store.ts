// The app state (zustand, vanilla store so tests can build one around a fake Api).
// The core is the only source of truth: each event has what it names refetched (live.ts), nothing
// is patched locally.
import { createStore, type StoreApi } from 'zustand/vanilla'
import { ApiError, type Api, type ApiEvent, type AppInfo, type ServerInfo, type Stats, type StatusInfo, type ToolInfo } from '../../shared/api'
import type { ServerAction, ServerActionOptions } from '../../shared/actions'
import { createSearchSlice, type SearchSlice } from './search'
import { createActivitySlice, type ActivitySlice } from './activity'
import type { AgentView } from '../../shared/agents'
import { createManageSlice, type ManageSlice, type ToastAction } from './manage'
import { createSignInSlice, type SignInSlice } from './sign-in'
import { createConfirmationsSlice, type ConfirmationsSlice } from './confirmations'
import { createQuestionsSlice, type QuestionsSlice } from './questions'
import { opensByDefault } from './selectors'
import { LiveUpdates, type Due } from './live'
import { createPromptsSlice, type PromptsSlice } from './prompts'
import { createResourcesSlice, type ResourcesSlice } from './resources'
import { busyKey, messageOf } from './slice-helpers'
import { createAct } from './act'
import { createToolsSlice, type ToolsSlice } from './tools'
import { createRequestsSlice, type RequestsSlice } from './requests'

// the components take these from the store
export { busyKey, messageOf }

export type Tab = 'servers' | 'requests' | 'search' | 'secrets' | 'activity' | 'agents'

/** The way back from a server action that is easy to regret: Undo in the toast. */
const UNDO: Partial<Record<ServerAction, ServerAction>> = { disable: 'enable', quarantine: 'approve' }

export interface Banner {
  id: number
  message: string
}

export interface AppState
  extends ToolsSlice, RequestsSlice, SearchSlice, ActivitySlice, ManageSlice, SignInSlice, ConfirmationsSlice, QuestionsSlice, PromptsSlice, ResourcesSlice {
  api: Api
  loaded: boolean
  /** the key was refused (web UI): show the key screen instead of the app */
  authError: ApiError | null
  /** the first load failed for another reason */
  loadError: string | null
  info: AppInfo | null
  status: StatusInfo | null
  servers: ServerInfo[]
  expanded: Record<string, boolean>
  busy: Record<string, boolean>
  /** servers whose Inspect failed without network: the UI then offers Inspect with network */
  inspectOffline: Record<string, string>
  banners: Banner[]
  toast: string | null
  tab: Tab
  stats: Stats | null
  agents: AgentView[] | null

  start(): () => void
  /** everything again: info (when asked or not loaded), status, servers, their open tool lists, requests */
  refresh(opts?: { info?: boolean }): Promise<void>
  /** Taken before an action; `afterChange(mark)` after it waits until the window shows what the action changed (the refresh its events bring). */
  changeMark(): number
  afterChange(mark: number): Promise<void>
  setExpanded(server: string, open: boolean): void
  serverAction(server: string, action: ServerAction, options?: ServerActionOptions): Promise<void>
  loadStats(): Promise<void>
  loadAgents(): Promise<void>
  setTab(tab: Tab): void
  reportError(err: unknown): void
  dismiss(id: number): void
  clearToast(): void
}

export type AppStore = StoreApi<AppState>

let bannerSeq = 0

export function createAppStore(api: Api, opts: { refreshDelayMs?: number; settleMs?: number; openUrl?: (url: string) => void } = {}): AppStore {
  return createStore<AppState>()((set, get, store) => {
    /** The status and the server list, with the cards that open by themselves; the open tool lists of servers gone are dropped. */
    const applyServers = (status: StatusInfo, servers: ServerInfo[]): void => {
      const names = new Set(servers.map((s) => s.name))
      const tools: Record<string, ToolInfo[]> = {}
      for (const [name, t] of Object.entries(get().tools)) if (names.has(name)) tools[name] = t
      // a card opens by itself when something in it waits for the user, and then stays open
      // (it must not fold away under the pointer once the last tool is approved)
      const expanded = { ...get().expanded }
      for (const s of servers) {
        if (expanded[s.name] === undefined && opensByDefault(s, servers)) expanded[s.name] = true
      }
      set({ status, servers, tools, expanded })
    }

    /** One refresh of what a burst of events named: nothing else is fetched. */
    const refreshDue = async (due: Due): Promise<void> => {
      const jobs: Array<Promise<unknown>> = []
      if (due.confirmations) jobs.push(get().loadConfirmations())
      if (due.questions) jobs.push(get().loadQuestions())
      if (due.secrets && (get().secretList !== null || get().tab === 'secrets')) jobs.push(get().loadSecrets())
      if (due.all) jobs.push(get().refresh({ info: due.info }))
      else {
        if (due.requests) jobs.push(get().loadRequests())
        if (due.info)
          jobs.push(
            api.info().then(
              (info) => set({ info }),
              (err: unknown) => get().reportError(err),
            ),
          )
        if (due.servers.size) jobs.push(refreshServers(due.servers))
      }
      if (due.all || due.servers.size) {
        jobs.push(get().rerunSearch())
        if (get().tab === 'activity') jobs.push(get().loadStats())
        if (get().tab === 'agents') jobs.push(get().loadAgents())
      }
      await Promise.all(jobs)
    }

    /** The servers named by events: the status and the list (one call each), and the tool lists of those open. */
    const refreshServers = async (named: ReadonlySet<string>): Promise<void> => {
      try {
        const [status, list] = await Promise.all([api.status(), api.servers()])
        applyServers(status, list.servers)
        // a server removed since the event named it is not fetched (its lists would answer 404)
        const names = new Set(list.servers.map((s) => s.name))
        const open = [...named].filter((s) => names.has(s))
        await Promise.all([
          ...open.filter((s) => get().tools[s]).map((s) => get().loadTools(s)),
          ...open.filter((s) => get().prompts[s]).map((s) => get().loadPrompts(s)),
          ...open.filter((s) => get().resources[s]).map((s) => get().loadResources(s)),
        ])
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) set({ authError: err })
        else get().reportError(err)
      }
    }

    const live = new LiveUpdates({ delayMs: opts.refreshDelayMs ?? 120, settleMs: opts.settleMs ?? 400, refresh: refreshDue })

    const onEvent = (ev: ApiEvent) => {
      // a record of what agents did changes nothing else: the Activity view takes it as it is
      if (ev.type === 'activity') get().activityArrived(ev.data)
      else live.note(ev)
    }

    const act = createAct(set, get)

    const undoOf = (server: string, action: ServerAction): ToastAction | undefined => {
      const back = UNDO[action]
      if (!back) return undefined
      // undoing a quarantine approves the launch that ran when the user quarantined it, not one changed since
      const hash = back === 'approve' ? get().servers.find((s) => s.name === server)?.launch_hash : undefined
      return {
        label: 'Undo',
        run: () => {
          set({ toast: null, toastAction: null })
          void get().serverAction(server, back, hash ? { hash } : undefined)
        },
      }
    }

    return {
      api,
      loaded: false,
      authError: null,
      loadError: null,
      info: null,
      status: null,
      servers: [],
      expanded: {},
      busy: {},
      inspectOffline: {},
      banners: [],
      toast: null,
      tab: 'servers',
      stats: null,
      agents: null,
      ...createToolsSlice(set, get),
      ...createRequestsSlice(set, get),
      ...createSearchSlice(set, get, store),
      ...createActivitySlice(set, get),
      ...createManageSlice(set, get),
      ...createSignInSlice(set, get, opts.openUrl),
      ...createConfirmationsSlice(set, get),
      ...createQuestionsSlice(set, get, opts.openUrl),
      ...createPromptsSlice(set, get),
      ...createResourcesSlice(set, get),

      start() {
        const unsubscribe = api.subscribe(onEvent)
        void get().refresh({ info: true })
        void get().loadConfirmations()
        void get().loadQuestions()
        return () => {
          unsubscribe()
          live.stop()
        }
      },

      changeMark: () => live.mark(),
      afterChange: (mark) => live.settled(mark),

      async refresh({ info = false } = {}) {
        try {
          const [infoRes, status, list] = await Promise.all([
            info || !get().info ? api.info() : Promise.resolve(get().info as AppInfo),
            api.status(),
            api.servers(),
          ])
          applyServers(status, list.servers)
          set({ info: infoRes, loaded: true, loadError: null, authError: null })
          const names = new Set(list.servers.map((s) => s.name))
          await Promise.all([
            ...Object.keys(get().tools).map((name) => get().loadTools(name)),
            ...Object.keys(get().prompts)
              .filter((name) => names.has(name))
              .map((name) => get().loadPrompts(name)),
            ...Object.keys(get().resources)
              .filter((name) => names.has(name))
              .map((name) => get().loadResources(name)),
            get().loadRequests(),
          ])
        } catch (err) {
          if (err instanceof ApiError && err.status === 401) set({ authError: err })
          else if (!get().loaded) set({ loadError: messageOf(err) })
          else get().reportError(err)
        }
      },

      setExpanded(server, open) {
        set((s) => ({ expanded: { ...s.expanded, [server]: open } }))
        if (open && !get().tools[server]) void get().loadTools(server)
        if (open && !get().prompts[server]) void get().loadPrompts(server)
        if (open && !get().resources[server]) void get().loadResources(server)
      },

      serverAction(server, action, options) {
        const setOffline = (message: string | null) =>
          set((s) => {
            const inspectOffline = { ...s.inspectOffline }
            if (message === null) delete inspectOffline[server]
            else inspectOffline[server] = message
            return { inspectOffline }
          })
        return act(
          busyKey('server', server, action, options?.network ? 'network' : options?.for ? 'for' : ''),
          async () => {
            try {
              const result = await (options ? api.serverAction(server, action, options) : api.serverAction(server, action))
              if (action === 'inspect') setOffline(null)
              return result
            } catch (err) {
              if (action === 'inspect' && err instanceof ApiError && err.code === 'inspect_failed_offline') setOffline(err.message)
              throw err
            }
          },
          async () => {
            // inspecting is how a quarantined server's tools become visible: show them (an open list came with the refresh)
            if (action === 'inspect') {
              set((s) => ({ expanded: { ...s.expanded, [server]: true } }))
              if (!get().tools[server]) await get().loadTools(server)
            }
          },
          undoOf(server, action),
        )
      },

      async loadStats() {
        try {
          set({ stats: await api.stats() })
        } catch (err) {
          get().reportError(err)
        }
      },

      async loadAgents() {
        try {
          set({ agents: (await api.agents()).agents })
        } catch (err) {
          get().reportError(err)
        }
      },

      setTab(tab) {
        set({ tab })
        if (tab === 'activity') void get().loadStats()
        if (tab === 'agents') void get().loadAgents()
        if (tab === 'secrets') void get().loadSecrets()
      },

      reportError(err) {
        const message = messageOf(err)
        // the same failure twice (e.g. a poll) stays one banner
        if (get().banners.some((b) => b.message === message)) return
        set((s) => ({ banners: [...s.banners, { id: ++bannerSeq, message }] }))
      },

      dismiss(id) {
        set((s) => ({ banners: s.banners.filter((b) => b.id !== id) }))
      },

      clearToast() {
        set({ toast: null, toastAction: null })
      },
    }
  })
}
