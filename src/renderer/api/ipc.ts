// The Electron adapter: the shared Api over the preload bridge (`window.toolgate`).
import {
  ApiError,
  type AgentInfo,
  type GrantOptions,
  type AgentTokenInfo,
  type ActionResult,
  type Api,
  type ApiEvent,
  type AppInfo,
  type AuthStatus,
  type SearchArgs,
  type RemoveResult,
  type ServerEntryView,
  type ServerInput,
  type SecretInfo,
  type SecretStoreInfo,
  type SignInStart,
  type ServerAction,
  type ServerActionOptions,
  type ServerInfo,
  type Stats,
  type StatusInfo,
  type ToolAction,
  type ToolActionOptions,
  type ToolInfo,
  type RequestActionResult,
  type ConfirmationActionResult,
} from '../../shared/api'
import type { AccessRequest, RequestFilter } from '../../shared/requests'
import type { ActivityPage, ActivityQuery } from '../../shared/activity'
import type { AgentView } from '../../shared/agents'
import type { Confirmation, ConfirmationFilter } from '../../shared/confirmations'
import type { ApiOp, ToolgateBridge } from '../../shared/ipc'

export class IpcApi implements Api {
  constructor(private readonly bridge: ToolgateBridge) {}

  info(): Promise<AppInfo> {
    return this.call('info')
  }
  status(): Promise<StatusInfo> {
    return this.call('status')
  }
  servers(): Promise<{ servers: ServerInfo[] }> {
    return this.call('servers')
  }
  server(name: string): Promise<{ server: ServerInfo }> {
    return this.call('server', name)
  }
  tools(server: string): Promise<{ tools: ToolInfo[] }> {
    return this.call('tools', server)
  }
  serverAction(server: string, action: ServerAction, options?: ServerActionOptions): Promise<ActionResult> {
    return options ? this.call('serverAction', server, action, options) : this.call('serverAction', server, action)
  }
  toolAction(server: string, tool: string, action: ToolAction, options?: ToolActionOptions): Promise<ActionResult> {
    return options ? this.call('toolAction', server, tool, action, options) : this.call('toolAction', server, tool, action)
  }
  requests(filter?: RequestFilter): Promise<{ requests: AccessRequest[] }> {
    return filter ? this.call('requests', filter) : this.call('requests')
  }
  grantRequest(id: string, grantFor: string, options?: GrantOptions): Promise<RequestActionResult> {
    return options ? this.call('grantRequest', id, grantFor, options) : this.call('grantRequest', id, grantFor)
  }
  denyRequest(id: string): Promise<RequestActionResult> {
    return this.call('denyRequest', id)
  }
  confirmations(filter?: ConfirmationFilter): Promise<{ confirmations: Confirmation[] }> {
    return filter ? this.call('confirmations', filter) : this.call('confirmations')
  }
  // the main process records these as answered in the window (it does not take the renderer's word for `via`)
  allowConfirmation(id: string): Promise<ConfirmationActionResult> {
    return this.call('allowConfirmation', id)
  }
  denyConfirmation(id: string): Promise<ConfirmationActionResult> {
    return this.call('denyConfirmation', id)
  }
  setAskBeforeCall(server: string, tool: string | null, ask: boolean): Promise<ActionResult> {
    return this.call('setAskBeforeCall', server, tool, ask)
  }
  approveAll(server: string): Promise<ActionResult> {
    return this.call('approveAll', server)
  }
  search(args: SearchArgs): Promise<string> {
    return this.call('search', args)
  }
  stats(): Promise<Stats> {
    return this.call('stats')
  }
  agentTokens(agent: string): Promise<{ tokens: AgentTokenInfo[] }> {
    return this.call('agentTokens', agent)
  }
  revokeAgentTokens(agent: string, id?: string): Promise<ActionResult> {
    return id === undefined ? this.call('revokeAgentTokens', agent) : this.call('revokeAgentTokens', agent, id)
  }
  serverEntry(server: string): Promise<{ entry: ServerEntryView }> {
    return this.call('serverEntry', server)
  }
  addServer(input: ServerInput): Promise<ActionResult> {
    return this.call('addServer', input)
  }
  editServer(server: string, input: ServerInput): Promise<ActionResult> {
    return this.call('editServer', server, input)
  }
  removeServer(server: string): Promise<RemoveResult> {
    return this.call('removeServer', server)
  }
  restoreServer(server: string): Promise<ActionResult> {
    return this.call('restoreServer', server)
  }
  secrets(): Promise<{ secrets: SecretInfo[]; store: SecretStoreInfo }> {
    return this.call('secrets')
  }
  setSecret(name: string, value: string): Promise<ActionResult> {
    return this.call('setSecret', name, value)
  }
  deleteSecret(name: string): Promise<ActionResult> {
    return this.call('deleteSecret', name)
  }
  agents(): Promise<{ agents: AgentView[] }> {
    return this.call('agents')
  }
  activity(query: ActivityQuery): Promise<ActivityPage> {
    return this.call('activity', query)
  }

  signIn(server: string): Promise<SignInStart> {
    return this.call('signIn', server)
  }
  authStatus(server: string): Promise<AuthStatus> {
    return this.call('authStatus', server)
  }
  signOut(server: string): Promise<ActionResult> {
    return this.call('signOut', server)
  }
  subscribe(listener: (event: ApiEvent) => void): () => void {
    return this.bridge.onEvent(listener)
  }

  private async call<T>(op: ApiOp, ...args: unknown[]): Promise<T> {
    let result
    try {
      result = await this.bridge.invoke(op, ...args)
    } catch (err) {
      throw new ApiError('ipc_failed', err instanceof Error ? err.message : String(err), 500)
    }
    if (!result.ok) throw new ApiError(result.error.code, result.error.message, result.error.status)
    return result.value as T
  }
}
