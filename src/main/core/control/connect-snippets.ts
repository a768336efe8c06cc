// The connect snippets (docs/connect.md): what each supported MCP client's config needs to launch
// this install's `toolgate stdio`, and the command that writes it.
import path from 'node:path'
import type { ConnectSnippet } from '../../../shared/api'
import { shellArg } from '../../../shared/launch'
import { appRoot, resolveDataDir } from '../paths'
import { CLIENT_LABELS, CLIENT_NAMES, clientConfigPath, currentLaunchCommand, snippetText } from '../clients'

/** Snippets for every supported client, launching this install's `toolgate stdio`. */
export function connectSnippets(dataDir: string, o: { temporary?: boolean } = {}): ConnectSnippet[] {
  const launch = currentLaunchCommand(path.join(appRoot(), 'bin', 'toolgate.js'))
  const defaultDir = resolveDataDir(undefined)
  const own = dataDir !== defaultDir
  return CLIENT_NAMES.map((client) => ({
    client,
    label: CLIENT_LABELS[client],
    config_path: clientConfigPath(client),
    snippet: snippetText(client, { launch, ...(own ? { dataDir } : {}) }),
    // the command that writes exactly this snippet, never the default data dir's beside a snippet for another
    write_command: `toolgate connect ${client} --write${own ? ` --data-dir ${shellArg(dataDir)}` : ''}`,
    ...(o.temporary ? { temporary: true } : {}),
  }))
}
