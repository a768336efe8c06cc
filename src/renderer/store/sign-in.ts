// The sign-in slice: Sign in starts an OAuth sign-in in the core and opens the authorization
// page (the desktop app opens the system browser itself; the web UI opens a new tab); the card
// keeps a link to the page while the sign-in waits, in case the tab was blocked or closed.
import type { StoreApi } from 'zustand/vanilla'
import type { AppState } from './store'
import { busyKey, busyMarker } from './slice-helpers'

export interface SignInSlice {
  /** the authorization page of a sign-in started from this window, by server */
  signInPages: Record<string, string>
  signIn(server: string): Promise<void>
  signOut(server: string): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

/** A new tab with no way back to this window (noopener: the sign-in page cannot reach Toolgate's page). */
export function openInNewTab(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer')
}

export function createSignInSlice(set: Set, get: Get, openUrl: (url: string) => void = openInNewTab): SignInSlice {
  const busy = busyMarker(set)
  return {
    signInPages: {},

    async signIn(server) {
      const key = busyKey('sign-in', server)
      if (get().busy[key]) return
      busy(key, true)
      const mark = get().changeMark()
      try {
        const start = await get().api.signIn(server)
        if (!start.opened) openUrl(start.authorization_url)
        set((s) => ({
          signInPages: { ...s.signInPages, [server]: start.authorization_url },
          toast: `Sign in to ${server} in your browser; Toolgate connects when it is done.`,
        }))
      } catch (err) {
        get().reportError(err)
        return
      } finally {
        busy(key, false)
      }
      await get().afterChange(mark)
    },

    async signOut(server) {
      const key = busyKey('sign-out', server)
      if (get().busy[key]) return
      busy(key, true)
      const mark = get().changeMark()
      try {
        set({ toast: (await get().api.signOut(server)).message })
      } catch (err) {
        get().reportError(err)
        return
      } finally {
        busy(key, false)
      }
      await get().afterChange(mark)
    },
  }
}
