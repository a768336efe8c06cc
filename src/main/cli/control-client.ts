// The operator commands' view of Toolgate: the live owner's control API (the shared
// ControlClient) when one owns the data dir, else an embedded core started just for this command.
import { ApiError, type Api } from '../../shared/api'
import { ControlClient } from '../../shared/control-client'
import { loadConfigFile } from '../core/config/load'
import { instanceKey, readLiveInstance } from '../core/state/lock'
import { resolveConfigPath, resolveDataDir } from '../core/paths'
import { startCore } from '../core/core'
import { createLogger } from '../core/log'

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

/**
 * Reaches Toolgate for one operator command. `needTools` waits until the upstreams have listed
 * their tools when no live instance exists (so tool names can be checked).
 */
export async function openOperator(where: Where, needTools: boolean): Promise<Operator> {
  const dataDir = resolveDataDir(where.dataDir)
  const configPath = resolveConfigPath(dataDir, where.config)
  const { config } = loadConfigFile(configPath)
  const live = readLiveInstance(dataDir)
  if (live?.url) {
    const key = instanceKey(live, dataDir, config.api_key)
    if (!key)
      throw new ApiError(
        'no_key',
        `cannot find the API key of the running Toolgate (looked at TOOLGATE_API_KEY, api_key in ${configPath}, ${dataDir}/api_key)`,
        401,
      )
    const client = new ControlClient({ key, baseUrl: live.url, unreachableHint: `The running Toolgate (pid ${live.pid}) did not answer.`, surface: 'cli' })
    return {
      api: client,
      createAgentToken: (agent) => client.createAgentToken(agent),
      forgetLearned: () => client.forgetLearned(),
      close: async () => {},
    }
  }
  const core = await startCore({
    configPath,
    dataDir,
    serveHttp: false,
    kind: 'stdio',
    logger: createLogger({ dataDir, stderr: false }),
  })
  if (needTools) await core.settled(30000)
  return {
    api: core.apiFor({ by: 'user', via: 'cli' }),
    createAgentToken: (agent) => core.createAgentToken(agent),
    forgetLearned: () => core.forgetLearned(),
    close: () => core.stop(),
  }
}
