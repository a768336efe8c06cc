// IPC handlers: each `toolgate:<op>` maps 1:1 onto the core's Api; core events go to the window
// on one channel. Arguments from the renderer are checked before they reach the core.
import type { IpcMain } from 'electron'
import type { SenderEvent } from './ipc-sender'
import {
  ApiError,
  SERVER_ACTIONS,
  TOOL_ACTIONS,
  type Api,
  type ApiEvent,
  type GrantOptions,
  type ServerActionOptions,
  type ServerInput,
  type ToolActionOptions,
} from '../../shared/api'
import { ConfirmationFilterSchema } from '../../shared/confirmations'
import { API_OPS, opChannel, SETTINGS_CHANNELS, type ApiOp, type IpcResult } from '../../shared/ipc'

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v.length === 0) throw new ApiError('bad_request', `${what} must be a non-empty string`, 400)
  return v
}
const oneOf = <T extends string>(v: unknown, allowed: readonly T[], what: string): T => {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    throw new ApiError('bad_request', `${what} must be one of ${allowed.join(', ')}`, 400)
  return v as T
}

/** A server action's options from the renderer: `{network?: boolean, for?: string, hash?: string}` (Inspect with network; enable/approve for a time; the launch reviewed). */
const actionOptions = (v: unknown): [] | [ServerActionOptions] => {
  if (v === undefined) return []
  const o = v !== null && typeof v === 'object' ? (v as { network?: unknown; for?: unknown; hash?: unknown }) : null
  if (
    !o ||
    Object.keys(o).some((k) => k !== 'network' && k !== 'for' && k !== 'hash') ||
    (o.network !== undefined && typeof o.network !== 'boolean') ||
    (o.for !== undefined && typeof o.for !== 'string') ||
    (o.hash !== undefined && (typeof o.hash !== 'string' || !o.hash))
  ) {
    throw new ApiError('bad_request', 'server action options must be {network?: true|false, for?: "1h", hash?: "<launch_hash>"}', 400)
  }
  return [
    {
      ...(o.network !== undefined ? { network: o.network } : {}),
      ...(o.for !== undefined ? { for: o.for } : {}),
      ...(o.hash !== undefined ? { hash: o.hash as string } : {}),
    },
  ]
}

/** A grant's options from the renderer: `{hash?: string}` (the launch or the tool definition reviewed). */
const grantOptions = (v: unknown): [] | [GrantOptions] => {
  if (v === undefined) return []
  const o = v !== null && typeof v === 'object' ? (v as { hash?: unknown }) : null
  if (!o || Object.keys(o).some((k) => k !== 'hash') || (o.hash !== undefined && (typeof o.hash !== 'string' || !o.hash)))
    throw new ApiError('bad_request', 'grant options must be {hash?: "<launch_hash or definition_hash>"}', 400)
  return [o.hash !== undefined ? { hash: o.hash as string } : {}]
}

/** A tool action's options from the renderer: `{for?: string, hash?: string}` (a time; the definition the user reviewed). */
const toolOptions = (v: unknown): [] | [ToolActionOptions] => {
  if (v === undefined) return []
  const o = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null
  if (
    o === null ||
    Object.keys(o).some((k) => k !== 'for' && k !== 'hash') ||
    (o.for !== undefined && typeof o.for !== 'string') ||
    (o.hash !== undefined && (typeof o.hash !== 'string' || !o.hash))
  ) {
    throw new ApiError('bad_request', 'tool action options must be {for?: "1h", hash?: string}', 400)
  }
  return [{ ...(o.for !== undefined ? { for: o.for as string } : {}), ...(o.hash !== undefined ? { hash: o.hash as string } : {}) }]
}

/** Opens a sign-in page in the system browser (http(s) only). */
export type OpenExternal = (url: string) => Promise<void>

/** Checks the renderer's arguments and calls the matching Api method. */
export async function callOp(api: Api, op: ApiOp, args: unknown[], openExternal?: OpenExternal): Promise<unknown> {
  switch (op) {
    case 'signIn': {
      const start = await api.signIn(str(args[0], 'server'))
      if (!openExternal) return start
      // the desktop app opens the system browser itself; the window only shows that it waits
      await openExternal(start.authorization_url)
      return { ...start, opened: true }
    }
    case 'authStatus':
      return api.authStatus(str(args[0], 'server'))
    case 'signOut':
      return api.signOut(str(args[0], 'server'))
    case 'info':
      return api.info()
    case 'status':
      return api.status()
    case 'servers':
      return api.servers()
    case 'stats':
      return api.stats()
    case 'server':
      return api.server(str(args[0], 'server'))
    case 'tools':
      return api.tools(str(args[0], 'server'))
    case 'approveAll':
      return api.approveAll(str(args[0], 'server'))
    case 'serverAction':
      return api.serverAction(str(args[0], 'server'), oneOf(args[1], SERVER_ACTIONS, 'action'), ...actionOptions(args[2]))
    case 'toolAction':
      return api.toolAction(str(args[0], 'server'), str(args[1], 'tool'), oneOf(args[2], TOOL_ACTIONS, 'action'), ...toolOptions(args[3]))
    case 'agents':
      return api.agents()
    case 'agentTokens':
      return api.agentTokens(str(args[0], 'agent'))
    case 'revokeAgentTokens':
      return api.revokeAgentTokens(str(args[0], 'agent'), args[1] === undefined ? undefined : str(args[1], 'token id'))
    case 'requests': {
      const f = args[0]
      if (f === undefined) return api.requests()
      const status = f !== null && typeof f === 'object' ? (f as { status?: unknown }).status : undefined
      if (Object.keys(f as object).some((k) => k !== 'status') || (status !== undefined && typeof status !== 'string'))
        throw new ApiError('bad_request', 'requests takes {status?: "pending"|"granted"|"denied"|"expired"}', 400)
      return api.requests(status === undefined ? {} : { status: status as never })
    }
    case 'grantRequest':
      return api.grantRequest(str(args[0], 'request id'), str(args[1], 'for'), ...grantOptions(args[2]))
    case 'denyRequest':
      return api.denyRequest(str(args[0], 'request id'))
    case 'activity': {
      const q = args[0]
      if (q !== undefined && (q === null || typeof q !== 'object' || Array.isArray(q))) throw new ApiError('bad_request', 'activity needs a query object', 400)
      // the service validates every field (ActivityQuerySchema)
      return api.activity((q ?? {}) as Record<string, string>)
    }
    case 'serverEntry':
      return api.serverEntry(str(args[0], 'server'))
    case 'addServer':
      // the body is checked by the core (the same checks as the control API)
      return api.addServer(args[0] as ServerInput)
    case 'editServer':
      return api.editServer(str(args[0], 'server'), args[1] as ServerInput)
    case 'removeServer':
      return api.removeServer(str(args[0], 'server'))
    case 'restoreServer':
      return api.restoreServer(str(args[0], 'server'))
    case 'secrets':
      return api.secrets()
    case 'setSecret':
      return api.setSecret(str(args[0], 'name'), str(args[1], 'value'))
    case 'deleteSecret':
      return api.deleteSecret(str(args[0], 'name'))
    case 'confirmations': {
      const f = args[0]
      if (f === undefined) return api.confirmations()
      const parsed = ConfirmationFilterSchema.safeParse(f)
      if (!parsed.success) throw new ApiError('bad_request', `confirmations takes {status?}: ${parsed.error.issues[0].message}`, 400)
      return api.confirmations(parsed.data)
    }
    // an answer over IPC is recorded as given where this Api is (the window), whatever the renderer sends
    case 'allowConfirmation':
      return api.allowConfirmation(str(args[0], 'confirmation id'))
    case 'denyConfirmation':
      return api.denyConfirmation(str(args[0], 'confirmation id'))
    case 'setAskBeforeCall': {
      if (typeof args[2] !== 'boolean') throw new ApiError('bad_request', 'ask must be true or false', 400)
      return api.setAskBeforeCall(str(args[0], 'server'), args[1] === null ? null : str(args[1], 'tool'), args[2])
    }
    case 'search': {
      const a = args[0] as { query?: unknown; limit?: unknown; include_disabled?: unknown } | undefined
      if (!a || typeof a !== 'object') throw new ApiError('bad_request', 'search needs {query, limit?, include_disabled?}', 400)
      return api.search({
        query: a.query as string,
        ...(a.limit !== undefined ? { limit: a.limit as number } : {}),
        ...(a.include_disabled !== undefined ? { include_disabled: a.include_disabled as boolean } : {}),
      })
    }
  }
}

export function toIpcError(err: unknown): IpcResult {
  if (err instanceof ApiError) return { ok: false, error: { code: err.code, message: err.message, status: err.status } }
  return { ok: false, error: { code: 'internal', message: err instanceof Error ? err.message : String(err), status: 500 } }
}

export interface IpcOptions {
  /** only the main frame of our own window, showing our page, may call the core (senderValidator) */
  isTrustedSender: (event: SenderEvent) => boolean
  /** signIn opens the authorization page with this (shell.openExternal) */
  openExternal?: OpenExternal
}

/** Registers one handler per operation; returns a function that removes them. */
export function registerIpcHandlers(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, api: Api, opts: IpcOptions): () => void {
  for (const op of API_OPS) {
    ipcMain.handle(opChannel(op), async (event, ...args: unknown[]): Promise<IpcResult> => {
      if (!opts.isTrustedSender(event)) return toIpcError(new ApiError('forbidden', 'IPC from an unknown sender', 403))
      try {
        return { ok: true, value: await callOp(api, op, args, opts.openExternal) }
      } catch (err) {
        return toIpcError(err)
      }
    })
  }
  return () => {
    for (const op of API_OPS) ipcMain.removeHandler(opChannel(op))
  }
}

export interface StartAtLogin {
  get(): boolean
  set(on: boolean): boolean
}

/** The desktop settings' channels, behind the same sender check; returns a function that removes them. */
export function registerSettingsHandlers(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, login: StartAtLogin, opts: IpcOptions): () => void {
  const guard = (event: SenderEvent): void => {
    if (!opts.isTrustedSender(event)) throw new Error('IPC from an unknown sender')
  }
  ipcMain.handle(SETTINGS_CHANNELS.getStartAtLogin, (event) => {
    guard(event)
    return login.get()
  })
  ipcMain.handle(SETTINGS_CHANNELS.setStartAtLogin, (event, on: unknown) => {
    guard(event)
    if (typeof on !== 'boolean') throw new Error('setStartAtLogin needs true or false')
    return login.set(on)
  })
  return () => {
    for (const ch of Object.values(SETTINGS_CHANNELS)) ipcMain.removeHandler(ch)
  }
}

/** Forwards every core event to `send` (the window's webContents); returns the unsubscribe. */
export function forwardEvents(api: Api, send: (event: ApiEvent) => void): () => void {
  return api.subscribe((event) => {
    try {
      send(event)
    } catch {
      // the window is gone or reloading: it refetches everything when it comes back
    }
  })
}
