// `toolgate serve`: the headless owner — MCP over Streamable HTTP, control API, web UI.
import { startCore } from '../core/core'
import { onShutdown } from './shutdown'

export async function serve(o: { config?: string; dataDir?: string; listen?: string }): Promise<void> {
  const core = await startCore({ configPath: o.config, dataDir: o.dataDir, listen: o.listen, serveHttp: true, kind: 'serve' })
  const { key, file } = core.adminKey
  const keyHint = file ? `the key is in ${file}` : 'the key is the one you configured (api_key or TOOLGATE_API_KEY)'
  process.stderr.write(
    [
      '',
      `Toolgate ${core.info.version} is running.`,
      `  config:   ${core.configPath}`,
      `  data dir: ${core.dataDir}`,
      `  MCP:      ${core.url}/mcp   (Authorization: Bearer <key>; ${keyHint})`,
      `  web UI:   ${core.url}/#key=${key}`,
      '',
    ].join('\n') + '\n',
  )
  onShutdown(() => core.stop())
}
