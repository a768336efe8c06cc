// The renderer's Content-Security-Policy (src/shared/csp.ts) as a response header of the
// window's session; the meta tag in index.html is the fallback for file:// loads.
import type { Session } from 'electron'
import { CSP } from '../../shared/csp'

export function installCsp(session: Pick<Session, 'webRequest'>): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } })
  })
}
