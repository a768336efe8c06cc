// The tray app's lifecycle: one instance, the core started once, a window that hides on close,
// the tray and notifications kept in step with the core's events, a clean stop on quit.
import { join } from 'node:path'
import { BrowserWindow, Notification, app, dialog, ipcMain, safeStorage, session, shell } from 'electron'
import type { Api, AppInfo } from '../../shared/api'
import type { DecisionOrigin } from '../../shared/activity'
import { EVENT_CHANNEL } from '../../shared/ipc'
import { parseAppArgs } from './args'
import { installCsp } from './csp'
import { forwardEvents, registerIpcHandlers, registerSettingsHandlers } from './ipc'
import { defaultLoginEnv, getStartAtLogin, setStartAtLogin } from './login-item'
import { confirmationNote, questionNote, RequestNotifier, WaitingNotifier, type Note } from './notify'
import { summarizeServers } from '../../shared/summary'
import { TrayController } from './tray'
import { isRendererOrigin, isRendererUrl, senderValidator } from './ipc-sender'
import { installPermissionPolicy } from './permissions'
import { createMainWindow, rendererEntry, showWindow } from './window'
import { safeStorageSealer } from './safe-storage'
import type { SecretSealer } from '../core/secrets/key'

export interface CoreHandle {
  api: Api
  /** the Api with its decisions recorded as made from the window or the tray */
  apiFor?(origin: DecisionOrigin): Api
  info: AppInfo
  url: string | null
  stop(): Promise<void>
}

export type StartCore = (opts: {
  configPath?: string
  dataDir?: string
  listen?: string
  serveHttp: boolean
  logToStderr?: boolean
  kind?: 'app'
  secretSealer?: SecretSealer | null
}) => Promise<CoreHandle>

export interface RunningApp {
  core: CoreHandle
  tray: TrayController
  window(): BrowserWindow | null
  /** refetch the servers now and update tray + notifications (also runs on every core event) */
  refresh(): Promise<void>
}

export interface AppTiming {
  /** events arriving together cause one refetch */
  refreshMs: number
  /** notify only about a state that held this long (a reconnect may pass through "pending" for a moment) */
  notifySettleMs: number
}

const DEFAULT_TIMING: AppTiming = { refreshMs: 150, notifySettleMs: 1000 }

export async function runApp(startCore: StartCore, argv: readonly string[] = process.argv, timing: AppTiming = DEFAULT_TIMING): Promise<RunningApp | null> {
  if (!app.requestSingleInstanceLock()) {
    // another Toolgate is running: it shows its window (second-instance) and we leave
    app.quit()
    return null
  }
  const args = parseAppArgs(argv)
  let quitting = false
  let core: CoreHandle | null = null
  let coreStopped = false
  let win: BrowserWindow | null = null

  const open = () => {
    if (!win || win.isDestroyed()) win = createWindow(true)
    showWindow(win)
  }
  const entry = rendererEntry()
  const createWindow = (show: boolean) => createMainWindow({ isQuitting: () => quitting, show, entry, icon: join(app.getAppPath(), 'resources', 'icon.png') })

  app.on('second-instance', () => open())
  app.on('activate', () => open())
  // the window only hides; should it ever be destroyed, the app keeps living in the tray
  app.on('window-all-closed', () => undefined)
  app.on('before-quit', (event) => {
    quitting = true
    if (core && !coreStopped) {
      event.preventDefault()
      const c = core
      c.stop()
        .catch(() => undefined)
        .finally(() => {
          coreStopped = true
          app.quit()
        })
    }
  })

  await app.whenReady()
  // the built page gets the strict CSP header; the dev server (unpackaged app, npm run dev) needs inline scripts and ws:
  if ('file' in entry) installCsp(session.defaultSession)
  installPermissionPolicy(session.defaultSession, { url: (u) => isRendererUrl(u, entry), origin: (o) => isRendererOrigin(o, entry) })
  try {
    // safeStorage works only after 'ready'; it seals the secret store's key (docs/secrets.md)
    const secretSealer = safeStorageSealer(safeStorage)
    core = await startCore({ configPath: args.configPath, dataDir: args.dataDir, listen: args.listen, serveHttp: true, kind: 'app', secretSealer })
  } catch (err) {
    dialog.showErrorBox('Toolgate could not start', err instanceof Error ? err.message : String(err))
    coreStopped = true
    app.exit(2)
    return null
  }
  const running = core

  const windowApi = running.apiFor?.({ by: 'user', via: 'window' }) ?? running.api
  const trayApi = running.apiFor?.({ by: 'user', via: 'tray' }) ?? running.api
  const isTrustedSender = senderValidator(() => win, entry)
  // a sign-in page opens in the system browser (its cookies, its password manager), never in our window
  const openExternal = async (url: string): Promise<void> => {
    if (!/^https?:\/\//i.test(url)) throw new Error(`not opening ${url.slice(0, 40)}: only http(s) sign-in pages open`)
    await shell.openExternal(url)
  }
  registerIpcHandlers(ipcMain, windowApi, { isTrustedSender, openExternal })
  const loginEnv = defaultLoginEnv(app)
  let tray: TrayController | null = null
  const login = {
    get: () => getStartAtLogin(loginEnv),
    set: (on: boolean) => {
      const now = setStartAtLogin(loginEnv, on)
      tray?.refreshMenu()
      return now
    },
  }
  registerSettingsHandlers(ipcMain, login, { isTrustedSender })
  // started at login: in the tray only (macOS passes no arguments to login items, it tells wasOpenedAtLogin)
  const hidden = args.hidden || (process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin)
  win = createWindow(!hidden)
  forwardEvents(running.api, (ev) => {
    if (win && !win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, ev)
  })

  const notify = (note: Note) => {
    if (!Notification.isSupported()) return
    const n = new Notification({ title: note.title, body: note.body })
    n.on('click', () => open())
    n.show()
  }
  const resources = join(app.getAppPath(), 'resources')
  const trayCtl = new TrayController(
    { normal: join(resources, 'tray.png'), attention: join(resources, 'tray-attention.png') },
    {
      open,
      quit: () => app.quit(),
      startAtLogin: () => login.get(),
      setStartAtLogin: (on) => {
        try {
          login.set(on)
        } catch (err) {
          notify({ title: 'Toolgate: could not change "Start at login"', body: err instanceof Error ? err.message : String(err) })
        }
      },
      signIn: (name) => {
        trayApi
          .signIn(name)
          .then((start) => openExternal(start.authorization_url))
          .catch((err: unknown) => notify({ title: `Toolgate: could not sign in to "${name}"`, body: err instanceof Error ? err.message : String(err) }))
      },
      setServerEnabled: (name, enabled) => {
        trayApi
          .serverAction(name, enabled ? 'enable' : 'disable')
          .catch((err: unknown) =>
            notify({ title: `Toolgate: could not ${enabled ? 'enable' : 'disable'} "${name}"`, body: err instanceof Error ? err.message : String(err) }),
          )
      },
    },
  )
  tray = trayCtl
  const notifier = new WaitingNotifier(notify)
  const requestNotifier = new RequestNotifier(notify)
  let settleTimer: ReturnType<typeof setTimeout> | null = null
  let baselined = false

  const refresh = async () => {
    try {
      const [{ servers }, { requests }, { confirmations }, { questions }] = await Promise.all([
        running.api.servers(),
        running.api.requests({ status: 'pending' }),
        running.api.confirmations(),
        running.api.questions(),
      ])
      const summary = summarizeServers(servers)
      trayCtl.update(servers, summary, requests.length, confirmations.length, questions.length)
      // an agent's request is news at once (it asks now and may be waiting): no settling
      requestNotifier.update(requests)
      if (!baselined) {
        baselined = true
        notifier.update(summary) // what waits at start is the baseline: the tray shows it, no notification
        return
      }
      if (settleTimer) clearTimeout(settleTimer)
      settleTimer = setTimeout(() => {
        settleTimer = null
        notifier.update(summary)
      }, timing.notifySettleMs)
    } catch {
      // the core is stopping; the next event refreshes again
    }
  }
  // a call waits for the user's OK: notify at once (the agent is waiting), with who, what and the arguments' start
  const notifyConfirmation = async (id: string) => {
    try {
      const c = (await running.api.confirmations()).confirmations.find((x) => x.id === id)
      if (c) notify(confirmationNote(c))
    } catch {
      // the core is stopping
    }
  }
  // a server's question waits for the user (the agent's client could not show it): notify at once, naming the server
  const notifyQuestion = async (id: string) => {
    try {
      const q = (await running.api.questions()).questions.find((x) => x.id === id)
      if (q) notify(questionNote(q))
    } catch {
      // the core is stopping
    }
  }
  let timer: ReturnType<typeof setTimeout> | null = null
  running.api.subscribe((ev) => {
    if (ev.type === 'confirmations.changed' && ev.data.new === true && typeof ev.data.id === 'string') void notifyConfirmation(ev.data.id)
    if (ev.type === 'question' && ev.data.new === true) void notifyQuestion(ev.data.id)
    if (timer) return
    timer = setTimeout(() => {
      timer = null
      void refresh()
    }, timing.refreshMs)
  })
  await refresh()

  return { core: running, tray: trayCtl, window: () => win, refresh }
}
