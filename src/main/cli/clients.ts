// `toolgate connect` and `toolgate import`.
import fs from 'node:fs'
import path from 'node:path'
import { nearMiss } from '../../shared/near-miss'
import {
  bypassingServers,
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
import { printJsonText, say, sayErr } from './output'
import { loadConfigFile } from '../core/config/load'
import { SecretStore } from '../core/secrets/store'
import { readLiveInstance } from '../core/state/lock'

// This install's own bin (global package, local package or checkout), started with this node: the
// client needs neither PATH nor a shell to find it.
const binPath = (): string => path.join(appRoot(), 'bin', 'toolgate.js')

/** npx runs packages from its cache, which npm may clean: the written path would then break. */
export function isNpxCache(file: string): boolean {
  return /[\\/]_npx[\\/]/.test(file)
}

export function connect(client: string, o: { agent?: string; write?: boolean; file?: string; dataDir?: string; config?: string }): void {
  if (!isClientName(client)) throw new UsageError(`unknown client "${client}"; use one of ${CLIENT_NAMES.join(', ')}`)
  const dataDir = resolveDataDir(o.dataDir)
  const configPath = resolveConfigPath(dataDir, o.config)
  // The snippet must start a Toolgate that knows this agent: check it now, not when the client fails.
  if (o.agent && !loadConfigFile(configPath).config.agents.some((a) => a.name === o.agent)) {
    throw new UsageError(
      `${configPath}: at $.agents: no agent named "${o.agent}"; add {"name": "${o.agent}", "servers": [...], "permissions": [...]} to "agents" first`,
    )
  }
  // A non-default config stays in the snippet (the default one is found from the data dir).
  const config = o.config && configPath !== resolveConfigPath(dataDir) ? configPath : undefined
  const opts = { launch: currentLaunchCommand(binPath()), agent: o.agent, dataDir: o.dataDir, config }
  if (isNpxCache(binPath()))
    process.stderr.write(
      `Note: this Toolgate runs from npx's cache (${appRoot()}); for a path that lasts, install it with \`npm i -g toolgate\` and run connect again.\n`,
    )
  if (!o.write) {
    printJsonText(snippetText(client, opts).trimEnd())
    sayErr(`Add this to ${o.file ?? clientConfigPath(client)} (or run again with --write), then restart the client.`)
    return
  }
  const file = o.file ?? clientConfigPath(client)
  const snippet = connectSnippet(client, opts)
  const r = writeClientConfig(file, snippet)
  say(
    r.changed
      ? `Updated ${file}${r.backup ? ` (backup: ${r.backup})` : ''}. Restart the client; Toolgate's tools (retrieve_tools, call_tool_*, ...) appear in it.`
      : `${file} already connects to Toolgate; nothing changed.`,
  )
  const bypass = bypassingServers(file, snippet)
  if (bypass.length > 0) {
    const source = o.file ? o.file : client
    say(
      `Note: ${bypass.length} server(s) in ${file} still bypass Toolgate: ${bypass.join(', ')}. The client reaches them directly, without quarantine, approval or locks. ` +
        `Run \`toolgate import ${source} --move\` to put them behind Toolgate (it backs the file up first).`,
    )
  }
}

export function importCmd(
  source: string,
  o: { dryRun?: boolean; trust?: boolean; move?: boolean; secrets?: boolean; config?: string; dataDir?: string },
): void {
  const dataDir = resolveDataDir(o.dataDir)
  const configFile = resolveConfigPath(dataDir, o.config)
  // a client's name with a typo is not a file to read ("import claud-desktop")
  if (!isClientName(source) && !fs.existsSync(path.resolve(source))) {
    const meant = nearMiss(source, CLIENT_NAMES)
    throw new UsageError(
      meant
        ? `"${source}" is neither a client nor a file; did you mean ${meant}? (clients: ${CLIENT_NAMES.join(', ')}, or the path of a config file)`
        : `${path.resolve(source)}: no such file; name a client (${CLIENT_NAMES.join(', ')}) or the path of a config file`,
    )
  }
  // Toolgate runs on its last good config while the file is missing (config/watch.ts): a file with
  // only the imported servers would replace that config when the watcher reads it
  const owner = fs.existsSync(configFile) || o.dryRun === true ? null : readLiveInstance(dataDir)
  if (owner)
    throw new UsageError(
      `${configFile}: the config file is missing while Toolgate runs on ${dataDir} (pid ${owner.pid}) with its last good config; importing now would write a file with only the imported servers, and Toolgate would apply it. ` +
        'Put the file back, or change something in the Toolgate window first (it writes the running config back), then import again.',
    )
  const secrets = o.secrets ? new SecretStore({ dataDir }) : undefined
  const r = importIntoConfigFile(resolveImportSource(source), configFile, {
    dryRun: o.dryRun === true,
    trust: o.trust === true,
    move: o.move === true,
    secrets,
  })
  const out: string[] = []
  for (const a of r.added) out.push(`${r.dryRun ? 'would add' : 'added'} ${a.name}${a.renamed ? ` (renamed from "${a.from}": the name was taken)` : ''}`)
  for (const s of r.skipped) out.push(`skipped ${s.name}: ${s.reason}`)
  for (const m of r.secretsMoved)
    out.push(`${r.dryRun ? 'would move' : 'moved'} ${m.server} ${m.field} into the secret store as ${m.secret}${m.reused ? ' (already stored)' : ''}`)
  for (const wrn of r.warnings) out.push(`warning${wrn.name ? ` (${wrn.name})` : ''}: ${wrn.message}`)
  if (!r.added.length && !r.skipped.length) out.push('no servers found to import')
  if (r.written) out.push(`wrote ${configFile}${o.trust ? '' : '; the new servers wait in quarantine until you approve them'}`)
  if (r.moved && r.moved.removed.length > 0) {
    out.push(
      r.dryRun
        ? `would remove ${r.moved.removed.join(', ')} from ${r.moved.file} (after a backup)`
        : `removed ${r.moved.removed.join(', ')} from ${r.moved.file} (backup: ${r.moved.backup}); the client now reaches them only through Toolgate: ` +
            `their tools, prompts and resources and their questions for you pass through it${o.trust ? '' : ' once you approve them'} ` +
            `(what passes, in which protocol era, and what does not: docs/passthrough.md)`,
    )
  }
  if (secrets && r.secretsMoved.length) {
    const warning = secrets.info().warning
    if (warning) out.push(`note: ${warning}`)
  }
  if (!secrets && !r.dryRun && r.written && r.added.length)
    out.push('tip: `--secrets` moves tokens from env and headers into the secret store instead of copying them')
  say(out.join('\n'))
}
