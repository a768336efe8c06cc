// `toolgate open`: the web UI of whichever process owns the data dir (the app, `serve`, or a
// client's embedded `toolgate stdio`), with a key for it. Printed, and handed to the desktop's
// opener (xdg-open / open / start); when none works, printing it is all.
import { spawn } from 'node:child_process'
import { loadConfigFile } from '../core/config/load'
import { instanceKey, readLiveInstance } from '../core/state/lock'
import { resolveConfigPath, resolveDataDir } from '../core/paths'

/** The commands that open a URL in the default browser, per platform. */
function openers(url: string): Array<[string, string[]]> {
  if (process.platform === 'darwin') return [['open', [url]]]
  if (process.platform === 'win32') return [['cmd', ['/c', 'start', '""', url]]]
  return [
    ['xdg-open', [url]],
    ['gio', ['open', url]],
  ]
}

/** Runs the first opener that exists and exits 0; resolves with its name, or null. */
async function launch(url: string): Promise<string | null> {
  for (const [cmd, args] of openers(url)) {
    const ok = await new Promise<boolean>((resolve) => {
      const child = spawn(cmd, args, { stdio: 'ignore', detached: true })
      child.once('error', () => resolve(false))
      child.once('exit', (code) => resolve(code === 0))
    })
    if (ok) return cmd
  }
  return null
}

export async function open(o: { config?: string; dataDir?: string }): Promise<void> {
  const dataDir = resolveDataDir(o.dataDir)
  const configPath = resolveConfigPath(dataDir, o.config)
  const { config } = loadConfigFile(configPath)
  const live = readLiveInstance(dataDir)
  if (!live?.url) {
    throw new Error(
      `Toolgate is not running (nothing owns ${dataDir}). Start it with \`toolgate serve\` (or the app; a client's \`toolgate stdio\` also runs it), then run \`toolgate open\` again.`,
    )
  }
  const key = instanceKey(live, dataDir, config.api_key)
  if (!key) throw new Error(`cannot find a key for the running Toolgate (pid ${live.pid}) at ${live.url}`)
  const url = `${live.url}/#key=${key}`
  process.stdout.write(url + '\n')
  const used = await launch(url)
  process.stderr.write(
    used
      ? `Opened the web UI of Toolgate (pid ${live.pid}, ${live.kind}) with ${used}.\n`
      : `Open this URL in a browser: the web UI of Toolgate (pid ${live.pid}, ${live.kind}); no opener (xdg-open, open, start) worked here.\n`,
  )
}
