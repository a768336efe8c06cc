// One Content-Security-Policy for the renderer (src/shared/csp.ts): the header of `toolgate serve`
// and of the Electron session (tested in http-serve and electron-app), and the meta tag of
// src/renderer/index.html, which must say the same minus what a meta tag cannot carry.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CSP, CSP_META } from '../../src/shared/csp'

const HTML = path.resolve(__dirname, '../../src/renderer/index.html')
const BUILT = path.resolve(__dirname, '../../out/renderer/index.html')

function metaCsp(html: string): string[] {
  return [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/gi)].map((m) => m[1])
}

describe('one CSP', () => {
  it('is the strict policy: own scripts, styles and connections only, no inline code, no plugins, no framing', () => {
    expect(CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    )
  })

  it('the meta tag of index.html is the same policy without frame-ancestors (ignored with a warning in a meta tag)', () => {
    expect(metaCsp(fs.readFileSync(HTML, 'utf8'))).toEqual([CSP_META])
    expect(CSP_META).toBe(CSP.replace("; frame-ancestors 'none'", ''))
  })

  // CI builds before the tests; a missing build fails here instead of passing unchecked
  it('the built page carries the same meta tag', () => {
    expect(fs.existsSync(BUILT), `${BUILT} is missing: run \`npm run build\` first`).toBe(true)
    expect(metaCsp(fs.readFileSync(BUILT, 'utf8'))).toEqual([CSP_META])
  })
})
