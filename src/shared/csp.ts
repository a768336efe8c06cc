// The renderer's Content-Security-Policy, one source for every place that sends it: the Electron
// session's response header, the web UI's header from `toolgate serve`, and the meta tag in
// src/renderer/index.html (the fallback for file:// loads; a test checks it says the same).
export const CSP_DIRECTIVES: ReadonlyArray<readonly [string, string]> = [
  ['default-src', "'self'"],
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['connect-src', "'self'"],
  ['object-src', "'none'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['frame-ancestors', "'none'"],
]

/** Directives a browser ignores (and warns about) in a <meta> tag. */
const HEADER_ONLY = new Set(['frame-ancestors', 'report-uri', 'sandbox'])

/** The policy as an HTTP header value. */
export const CSP = CSP_DIRECTIVES.map(([k, v]) => `${k} ${v}`).join('; ')

/** The same policy for `<meta http-equiv="Content-Security-Policy">`: without the header-only directives. */
export const CSP_META = CSP_DIRECTIVES.filter(([k]) => !HEADER_ONLY.has(k))
  .map(([k, v]) => `${k} ${v}`)
  .join('; ')
