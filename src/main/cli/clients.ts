// `toolgate connect` and `toolgate import`.
import path from 'node:path'
import {
  clientConfigPath,
  CLIENT_NAMES,
  connectSnippet,
  currentLaunchCommand,
  importIntoConfigFile,
  isClientName,
  resolveImportSource,
  snippetText,
  writeClientConfig,
} from '../core/clients'
import { appRoot, resolveConfigPath, resolveDataDir } from '../core/paths'
import { UsageError } from './errors'

// This install's own bin (global package, local package or checkout), started with this node: the
// client needs neither PATH nor a shell to find it.
const binPath = (): string => path.join(appRoot(), 'bin', 'toolgate.js')

/** npx runs packages from its cache, which npm may clean: the written path would then break. */
export function isNpxCache(file: string): boolean {
  return /[\\/]_npx[\\/]/.test(file)
}

export function connect(client: string, o: { agent?: string; write?: boolean; file?: string; dataDir?: string }): void {
  if (!isClientName(client)) throw new UsageError(`unknown client "${client}"; use one of ${CLIENT_NAMES.join(', ')}`)
  const opts = { launch: currentLaunchCommand(binPath()), agent: o.agent, dataDir: o.dataDir }
  if (isNpxCache(binPath()))
    process.stderr.write(
      `Note: this Toolgate runs from npx's cache (${appRoot()}); for a path that lasts, install it with \`npm i -g toolgate\` and run connect again.\n`,
    )
  if (!o.write) {
    process.stdout.write(snippetText(client, opts))
    process.stderr.write(`Add this to ${o.file ?? clientConfigPath(client)} (or run again with --write), then restart the client.\n`)
    return
  }
  const file = o.file ?? clientConfigPath(client)
  const r = writeClientConfig(file, connectSnippet(client, opts))
  process.stdout.write(
    r.changed
      ? `Updated ${file}${r.backup ? ` (backup: ${r.backup})` : ''}. Restart the client; Toolgate's tools (retrieve_tools, call_tool_*, ...) appear in it.\n`
      : `${file} already connects to Toolgate; nothing changed.\n`,
  )
}

export function importCmd(source: string, o: { dryRun?: boolean; trust?: boolean; config?: string; dataDir?: string }): void {
  const configFile = resolveConfigPath(resolveDataDir(o.dataDir), o.config)
  const r = importIntoConfigFile(resolveImportSource(source), configFile, { dryRun: o.dryRun === true, trust: o.trust === true })
  const out: string[] = []
  for (const a of r.added) out.push(`${r.dryRun ? 'would add' : 'added'} ${a.name}${a.renamed ? ` (renamed from "${a.from}": the name was taken)` : ''}`)
  for (const s of r.skipped) out.push(`skipped ${s.name}: ${s.reason}`)
  for (const wrn of r.warnings) out.push(`warning${wrn.name ? ` (${wrn.name})` : ''}: ${wrn.message}`)
  if (!r.added.length && !r.skipped.length) out.push('no servers found to import')
  if (r.written) out.push(`wrote ${configFile}${o.trust ? '' : '; the new servers wait in quarantine until you approve them'}`)
  process.stdout.write(out.join('\n') + '\n')
}
