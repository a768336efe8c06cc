// `toolgate app`: the tray app needs Electron, which an npm install of the CLI does not bring.
// Electron is looked up where this install can reach it (its own node_modules, the checkout, the
// global packages). Its binary is fetched on first use; where it is missing and cannot be fetched
// (no network, a server), one line says how to get the desktop app instead of Electron's
// installer output.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { appRoot } from '../core/paths'
import { fail } from './errors'

export const NO_ELECTRON =
  'toolgate app needs Electron, which this install does not include: install the Toolgate desktop app (AppImage, deb, dmg or exe), or `npm i -g electron` and run `toolgate app` again; `toolgate serve` shows the same UI in a browser (`npm run demo` to try it).'

/** Where global npm packages live for the node running us. */
export function globalModules(execPath = process.execPath, platform = process.platform): string {
  return platform === 'win32' ? path.join(path.dirname(execPath), 'node_modules') : path.resolve(path.dirname(execPath), '..', 'lib', 'node_modules')
}

/** The Electron package's entry (its export is the binary's path), or null when this install cannot reach one. */
export function findElectron(roots: string[] = [appRoot(), globalModules()]): string | null {
  const req = createRequire(path.join(appRoot(), 'package.json'))
  try {
    return req.resolve('electron', { paths: roots })
  } catch {
    return null
  }
}

/** The downloaded Electron binary of the package at `pkgDir` (electron's own path.txt + dist), else null. */
function electronBinary(pkgDir: string): string | null {
  try {
    const bin = path.join(pkgDir, 'dist', fs.readFileSync(path.join(pkgDir, 'path.txt'), 'utf8').trim())
    return fs.existsSync(bin) ? bin : null
  } catch {
    return null
  }
}

export function startApp(args: string[]): void {
  const entry = findElectron()
  if (!entry) fail(new Error(NO_ELECTRON))
  const pkgDir = path.dirname(entry)
  let bin = process.env.ELECTRON_OVERRIDE_DIST_PATH ? null : electronBinary(pkgDir)
  if (!bin && !process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    // Electron >= 42 downloads its binary on first use: run its installer quietly (its progress
    // and stack traces are not for this terminal), and say in one line when that fails.
    const r = spawnSync(process.execPath, [path.join(pkgDir, 'install.js')], { cwd: pkgDir, encoding: 'utf8', timeout: 10 * 60_000 })
    bin = r.status === 0 ? electronBinary(pkgDir) : null
    if (!bin) {
      const why = `${r.stderr ?? ''}\n${r.stdout ?? ''}`.split('\n').find((l) => /ENOTFOUND|ECONN|EAI_AGAIN|fetch failed|Error/.test(l))
      fail(new Error(`the Electron binary is not downloaded and could not be fetched${why ? ` (${why.trim().slice(0, 120)})` : ''}; ${NO_ELECTRON}`))
    }
  }
  if (!bin) {
    try {
      // electron's index.js exports the path of its binary
      bin = createRequire(entry)(entry) as string
    } catch (e) {
      fail(new Error(`cannot start Electron (${(e as Error).message}); ${NO_ELECTRON}`))
    }
  }
  const child = spawn(bin, [appRoot(), ...args], { stdio: 'inherit' })
  child.on('error', (e) => fail(new Error(`cannot start Electron (${e.message}); ${NO_ELECTRON}`)))
  child.on('exit', (code) => process.exit(code ?? 0))
}
