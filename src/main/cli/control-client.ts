// The operator commands' view of Toolgate: the live owner's control API (the shared
// ControlClient) when one owns the data dir, else a core on the data dir that starts no
// upstream and shows the last known catalog.
import { ApiError, type Api } from '../../shared/api'
import { ControlClient } from '../../shared/control-client'
import { loadConfigFile } from '../core/config/load'
import type { Config } from '../../shared/config-schema'
import { instanceKey, readLiveInstance } from '../core/state/lock'
import { resolveConfigPath, resolveDataDir } from '../core/paths'
import { startCore } from '../core/core'
import { createLogger } from '../core/log'
import { readLastCatalog } from '../core/state/last-catalog'
import { sayErr } from './output'

/** The Api, plus what only an operator may do and the clean-up of an embedded core. */
export interface Operator {
  api: Api
  createAgentToken(agent: string): Promise<string>
  forgetLearned(): Promise<number>
  close(): Promise<void>
}

export interface Where {
  config?: string
  dataDir?: string
}

/** The data dir, config and, when a Toolgate owns the data dir, a client of its control API. */
export function locate(where: Where): { dataDir: string; configPath: string; config: Config; live: ControlClient | null } {
  const dataDir = resolveDataDir(where.dataDir)
  const configPath = resolveConfigPath(dataDir, where.config)
  const { config } = loadConfigFile(configPath)
  const live = readLiveInstance(dataDir)
  if (!live?.url) return { dataDir, configPath, config, live: null }
  const key = instanceKey(live, dataDir, config.api_key)
  if (!key)
    throw new ApiError(
      'no_key',
      `cannot find the API key of the running Toolgate (looked at TOOLGATE_API_KEY, api_key in ${configPath}, ${dataDir}/api_key)`,
      401,
    )
  const client = new ControlClient({ key, baseUrl: live.url, unreachableHint: `The running Toolgate (pid ${live.pid}) did not answer.`, surface: 'cli' })
  return { dataDir, configPath, config, live: client }
}

/**
 * Reaches Toolgate for one operator command: the live owner, else the data dir itself. `listen`
 * gives that embedded core a loopback listener (on the configured address, else any free port):
 * a sign-in's redirect comes back to it.
 */
export async function openOperator(where: Where, opts: { listen?: boolean } = {}): Promise<Operator> {
  const { dataDir, configPath, live: client } = locate(where)
  if (client) {
    return {
      api: client,
      createAgentToken: (agent) => client.createAgentToken(agent),
      forgetLearned: () => client.forgetLearned(),
      close: async () => {},
    }
  }
  // Nothing runs: act on the data dir, with the last known catalog; never start an upstream
  // (they may be npx or docker commands, and the user did not ask to run anything).
  const core = await startCore({
    configPath,
    dataDir,
    serveHttp: opts.listen === true,
    fallbackPort: opts.listen === true, // the configured port is taken by something else: any free one
    kind: 'stdio',
    offline: true,
    logger: createLogger({ dataDir, stderr: false }),
  })
  const last = readLastCatalog(dataDir)
  sayErr(
    `Toolgate is not running (nothing owns ${dataDir}); ${last ? `showing the last known catalog (${last.written_at})` : 'no catalog is known yet (tools appear once Toolgate has run)'}. No upstream server was started.`,
  )
  return {
    api: core.apiFor({ by: 'user', via: 'cli' }),
    createAgentToken: (agent) => core.createAgentToken(agent),
    forgetLearned: () => core.forgetLearned(),
    close: () => core.stop(),
  }
}

/** Runs `fn` with {@link openOperator}'s operator and closes it afterwards, whatever happens. */
export async function withOperator<T>(where: Where, fn: (op: Operator) => Promise<T>): Promise<T> {
  const op = await openOperator(where)
  try {
    return await fn(op)
  } finally {
    await op.close()
  }
}

/** Runs `fn` against the Api of {@link openOperator} and closes it afterwards, whatever happens. */
export function withOperatorApi<T>(where: Where, fn: (api: Api) => Promise<T>): Promise<T> {
  return withOperator(where, (op) => fn(op.api))
}
