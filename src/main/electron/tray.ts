// The tray icon and its menu: overall state, what waits, one submenu per server with
// Enable/Disable, Open Toolgate and Quit. The icon and tooltip change when something waits.
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron'
import type { ServerInfo } from '../../shared/api'
import { connectedText, summarizeServers, type ServersSummary as Summary } from '../../shared/summary'
import { STARTS_ON_FIRST_USE } from '../../shared/lifecycle'

export interface TrayHandlers {
  open(): void
  quit(): void
  setServerEnabled(server: string, enabled: boolean): void
  /** starts a sign-in and opens the authorization page in the system browser */
  signIn(server: string): void
  /** the start-at-login setting: its state now, and the switch */
  startAtLogin(): boolean
  setStartAtLogin(on: boolean): void
}

const STATE_LABEL: Record<ServerInfo['state'], string> = {
  connected: 'connected',
  connecting: 'connecting…',
  stopped: 'stopped',
  error: 'error',
  quarantined: 'quarantined',
  disabled: 'off',
  needs_auth: 'needs sign-in',
}

function serverItem(s: ServerInfo, h: TrayHandlers): MenuItemConstructorOptions {
  const pending = s.counts.pending_approval ?? 0
  const label = `${s.name} — ${s.starts_on_demand ? STARTS_ON_FIRST_USE : STATE_LABEL[s.state]}${pending > 0 ? ` · ${pending} waiting` : ''}`
  const submenu: MenuItemConstructorOptions[] = [{ label: `${s.counts.callable} tool${s.counts.callable === 1 ? '' : 's'} callable`, enabled: false }]
  if (s.state === 'error' && s.last_error) submenu.push({ label: `Error: ${s.last_error.slice(0, 80)}`, enabled: false })
  if (s.enabled && (s.state === 'needs_auth' || s.auth?.status === 'needs_sign_in')) submenu.push({ label: 'Sign in…', click: () => h.signIn(s.name) })
  if (s.quarantined) {
    submenu.push({
      label:
        s.quarantine_source === 'config'
          ? 'Held in quarantine by the config'
          : s.quarantine_source === 'organisation'
            ? 'Held in quarantine: set by your organisation'
            : 'Review in Toolgate…',
      enabled: s.quarantine_source !== 'config' && s.quarantine_source !== 'organisation',
      click: () => h.open(),
    })
  } else if (pending > 0) {
    submenu.push({ label: `Review ${pending} waiting tool${pending === 1 ? '' : 's'}…`, click: () => h.open() })
  }
  submenu.push({ type: 'separator' })
  submenu.push(
    s.enabled ? { label: 'Disable', click: () => h.setServerEnabled(s.name, false) } : { label: 'Enable', click: () => h.setServerEnabled(s.name, true) },
  )
  return { label, submenu }
}

/** The menu template; pure so it can be tested without Electron. */
export function buildTrayMenu(
  servers: readonly ServerInfo[],
  summary: Summary,
  h: TrayHandlers,
  requests = 0,
  calls = 0,
  questions = 0,
): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [
    { label: connectedText(summary), enabled: false },
    { label: `${summary.callable} tools callable`, enabled: false },
    summary.waiting > 0
      ? { label: `${summary.waiting} waiting for approval…`, click: () => h.open() }
      : { label: 'Nothing waiting for approval', enabled: false },
    // calls that wait for the user's OK: answered in the window, where the arguments are shown
    ...(calls > 0 ? [{ label: `${callsText(calls)} for your OK…`, click: () => h.open() }] : []),
    // servers' questions the agent's client could not show: answered in the window, where the form is
    ...(questions > 0 ? [{ label: `${questionsText(questions)} for your answer…`, click: () => h.open() }] : []),
  ]
  if (requests > 0) items.push({ label: `${requests} access request${requests === 1 ? '' : 's'} from agents…`, click: () => h.open() })
  if (summary.needsSignIn.length > 0) items.push({ label: signInLine(summary), click: () => h.open() })
  items.push({ type: 'separator' })
  if (servers.length === 0) items.push({ label: 'No servers configured yet', enabled: false })
  for (const s of servers) items.push(serverItem(s, h))
  items.push(
    { type: 'separator' },
    { label: 'Start at login', type: 'checkbox', checked: h.startAtLogin(), click: (item) => h.setStartAtLogin(item.checked) },
    { label: 'Open Toolgate', click: () => h.open() },
    { label: 'Quit Toolgate', click: () => h.quit() },
  )
  return items
}

/** "1 server needs sign-in…" / "2 servers need sign-in…" */
export function signInLine(summary: Summary): string {
  const n = summary.needsSignIn.length
  return `${n} server${n === 1 ? ' needs' : 's need'} sign-in…`
}

const callsText = (n: number): string => (n === 1 ? '1 call waits' : `${n} calls wait`)
const questionsText = (n: number): string => (n === 1 ? "1 server's question waits" : `${n} servers' questions wait`)

export function tooltipFor(summary: Summary, requests = 0, calls = 0, questions = 0): string {
  if (calls > 0) return `Toolgate — ${callsText(calls)} for your OK${questions > 0 ? `, ${questionsText(questions)}` : ''}`
  if (questions > 0) return `Toolgate — ${questionsText(questions)} for your answer`
  const asks = requests > 0 ? `${requests} access request${requests === 1 ? '' : 's'}` : ''
  const signIn = summary.needsSignIn.length > 0 ? signInLine(summary).replace('…', '') : ''
  const also = [asks, signIn].filter(Boolean).join(', ')
  if (summary.waiting > 0) return `Toolgate — ${summary.waiting} waiting for approval${also ? `, ${also}` : ''}`
  if (also) return `Toolgate — ${also}`
  return `Toolgate — ${summary.connected}/${summary.total} servers, ${summary.callable} tools`
}

export interface TrayIcons {
  normal: string
  attention: string
}

export class TrayController {
  readonly tray: Tray
  private attention = false

  constructor(
    private readonly icons: TrayIcons,
    private readonly handlers: TrayHandlers,
  ) {
    this.tray = new Tray(nativeImage.createFromPath(icons.normal))
    this.tray.setToolTip('Toolgate')
    this.tray.on('click', () => handlers.open())
    this.tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenu([], summarizeServers([]), handlers)))
  }

  private last: { servers: readonly ServerInfo[]; summary: Summary; requests: number; calls: number; questions: number } = {
    servers: [],
    summary: summarizeServers([]),
    requests: 0,
    calls: 0,
    questions: 0,
  }

  /** Rebuilds the menu from the last state (e.g. after a setting changed). */
  refreshMenu(): void {
    const l = this.last
    this.tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenu(l.servers, l.summary, this.handlers, l.requests, l.calls, l.questions)))
  }

  /** `requests`: access requests waiting for the user; `calls`: agent calls waiting for the user's OK; `questions`: servers' questions waiting for the user's answer. */
  update(servers: readonly ServerInfo[], summary: Summary, requests = 0, calls = 0, questions = 0): void {
    this.last = { servers, summary, requests, calls, questions }
    const attention = summary.waiting > 0 || requests > 0 || calls > 0 || questions > 0 || summary.needsSignIn.length > 0
    if (attention !== this.attention) {
      this.attention = attention
      this.tray.setImage(nativeImage.createFromPath(attention ? this.icons.attention : this.icons.normal))
    }
    this.tray.setToolTip(tooltipFor(summary, requests, calls, questions))
    if (process.platform === 'darwin') this.tray.setTitle(attention ? String(summary.waiting + requests + calls + questions + summary.needsSignIn.length) : '')
    this.tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenu(servers, summary, this.handlers, requests, calls, questions)))
  }

  destroy(): void {
    this.tray.destroy()
  }
}
