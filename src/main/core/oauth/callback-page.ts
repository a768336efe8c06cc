// The page the browser shows after an authorization server sent it back to Toolgate's
// /oauth/callback: a short result, nothing from the URL echoed, no scripts, no referrer, no cache.
import type { ServerResponse } from 'node:http'
import type { CallbackAnswer } from './service'

const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

export function sendCallbackPage(res: ServerResponse, answer: CallbackAnswer): void {
  const ok = answer.status < 400
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Toolgate: ${escapeHtml(answer.title)}</title>
<style>body{font:16px system-ui,sans-serif;margin:15vh auto;max-width:36em;padding:0 1em;color:#1d2330}h1{font-size:1.4em;color:${ok ? '#17603a' : '#9b1c1c'}}</style>
</head><body><h1>${escapeHtml(answer.title)}</h1><p>${escapeHtml(answer.message)}</p></body></html>
`
  res.writeHead(answer.status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': CSP,
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  })
  res.end(body)
}
