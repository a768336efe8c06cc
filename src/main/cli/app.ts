// `toolgate app`: the tray app needs Electron, which an npm install of the CLI does not bring.
// Electron is looked up where this install can reach it (its own node_modules, the checkout, the
// global packages); without it, one line says how to get the desktop app.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { createRequire } from 'node:module'
import { appRoot } from '../core/paths'
import { fail } from './errors'

export const NO_ELECTRON =
  'toolgate app needs Electron, which this install does not include: install the Toolgate desktop app (AppImage, deb, dmg or exe), or `npm i -g electron` and run `toolgate app` again; `toolgate serve` shows the same UI in a browser.'

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

export function startApp(args: string[]): void {
  const entry = findElectron()
  if (!entry) fail(new Error(NO_ELECTRON))
  let bin: string
  try {
    // electron's index.js exports the path of its binary (Electron >= 42 downloads it on first use)
    bin = createRequire(entry)(entry) as string
  } catch (e) {
    fail(new Error(`cannot start Electron (${(e as Error).message}); ${NO_ELECTRON}`))
  }
  const child = spawn(bin, [appRoot(), ...args], { stdio: 'inherit' })
  child.on('error', (e) => fail(new Error(`cannot start Electron (${e.message}); ${NO_ELECTRON}`)))
  child.on('exit', (code) => process.exit(code ?? 0))
}
