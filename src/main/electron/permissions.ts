// Web permissions of the window's session: everything is denied except writing to the clipboard
// (the Copy buttons), and that only for our own page.
import type { Session } from 'electron'

export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write'])

export interface OwnPage {
  url(url: string): boolean
  origin(origin: string): boolean
}

export function installPermissionPolicy(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>, own: OwnPage): void {
  session.setPermissionRequestHandler((webContents, permission, callback, details) => {
    callback(ALLOWED_PERMISSIONS.has(permission) && own.url(details.requestingUrl || webContents.getURL()))
  })
  session.setPermissionCheckHandler((_webContents, permission, requestingOrigin) => ALLOWED_PERMISSIONS.has(permission) && own.origin(requestingOrigin))
}
