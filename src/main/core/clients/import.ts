// `toolgate import claude-desktop|cursor|claude-code|vscode|FILE`: reads a client's servers
// (client-servers.ts), merges them into mcp_config.json (merge.ts, pure) and writes it through
// the one config writer (config/write.ts). With `--move` the imported servers then leave the
// client's file (after a backup), so the client reaches them only through Toolgate.
import { parseConfig } from '../config/load'
import { writeConfigFile } from '../config/write'
import { readJsonFile } from '../json-file'
import { readClientServers, type ImportSource } from './client-servers'
import { mergeServers, type ImportOptions, type ImportResult } from './merge'
import { removeClientServers, type RemoveClientResult } from './write'
import { moveSecrets, type MovedSecret } from './import-secrets'

export * from './client-servers'
export * from './merge'

/** Reads `source` and merges its servers into a copy of `existing` (the parsed mcp_config.json); writes nothing. */
export function importServers(source: ImportSource, existing: unknown, opts: ImportOptions = {}): ImportResult {
  const read = readClientServers(source)
  return mergeServers(read.entries, existing, opts, read.warnings)
}

export interface ImportFileResult extends ImportResult {
  configFile: string
  /** true when the Toolgate config file was written */
  written: boolean
  /** with `move`: what left the client's file (or, in a dry run, would leave it) */
  moved?: RemoveClientResult & { file: string }
  /** with `secrets`: the values moved into the secret store (or, in a dry run, that would be) */
  secretsMoved: MovedSecret[]
}

/**
 * Reads Toolgate's config file (a missing one counts as empty), imports `source` into it and
 * writes it back atomically, unless `dryRun` or nothing was added. The result is validated like
 * the loader does even in a dry run, so a dry run fails where the real run would. With `move`,
 * the servers Toolgate now has are then removed from the source file (backup first).
 */
export function importIntoConfigFile(source: ImportSource, configFile: string, opts: ImportOptions = {}): ImportFileResult {
  const current = readJsonFile(configFile, { what: 'the Toolgate config' })
  const existing: unknown = current.exists ? current.value : { mcpServers: {} }
  const client = readClientServers(source)
  const result = mergeServers(client.entries, existing, opts, client.warnings)
  if (result.added.length > 0) parseConfig(configFile, result.config)
  // values go into the store before the references that need them are written
  const secretsMoved = opts.secrets ? moveSecrets(result.config, result.added, opts.secrets, result.dryRun) : []
  const write = !result.dryRun && result.added.length > 0
  if (write) writeConfigFile(configFile, result.config, current.exists ? current.layout : undefined)
  const out: ImportFileResult = { ...result, configFile, written: write, secretsMoved }
  if (opts.move && client.key && result.inToolgate.length > 0) {
    out.moved = result.dryRun
      ? { file: source.file, removed: result.inToolgate }
      : { file: source.file, ...removeClientServers(source.file, client.key, result.inToolgate) }
  }
  return out
}
