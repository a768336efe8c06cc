// Electron main entry (`toolgate app` / `npm start`): the same core as `toolgate serve`, plus a
// window and a tray. All logic lives in ./core; ./electron only wires it to the desktop.
import { startCore } from './core/core'
import { runApp } from './electron/app'

runApp(startCore).catch((err: unknown) => {
  process.stderr.write(`toolgate app: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
