// What the control service is built from, per core: the catalog, the upstreams, the records and
// the pending human decisions it reads and routes decisions through.
import type { EventEmitter } from 'node:events'
import type { ActivityRecorder } from '../activity/recorder'
import type { AskInClientSwitch } from '../agents-view/ask-in-client'
import type { AgentTokens } from '../agent-server/tokens'
import type { Catalog } from '../catalog/catalog'
import type { DiscoveryStats } from '../discovery/stats'
import type { Logger } from '../log'
import type { OAuthService } from '../oauth/service'
import type { AccessRequests } from '../requests/access'
import type { CallConfirmations } from '../requests/confirmations'
import type { UserQuestions } from '../requests/questions'
import type { SecretStore } from '../secrets/store'
import type { UpstreamManager } from '../upstream/manager'

export interface ServiceDeps {
  catalog: Catalog
  manager: UpstreamManager
  stats: DiscoveryStats
  logger: Logger
  events: EventEmitter
  configPath: string
  dataDir: string
  /** the user's secrets (values never leave through this service) */
  secrets: SecretStore
  startedAt: number
  /** re-read the config file now (after Toolgate wrote it) */
  reloadConfig(): void
  mcpUrl(): string | null
  configError(): string | null
  tokens: AgentTokens
  /** agents' access requests (requests/index.ts) */
  requests: AccessRequests
  activity: ActivityRecorder
  /** false for an operator command while nothing owns the data dir: no upstream runs */
  running: boolean
  /** OAuth sign-in of HTTP servers; absent where nothing can receive the browser's redirect */
  oauth?: OAuthService
  /** calls waiting for the user's OK (requests/confirmations.ts) */
  confirmations: CallConfirmations
  /** upstream questions Toolgate asks the user itself (requests/questions.ts) */
  questions: UserQuestions
  /** each agent's ask_in_client switch (agents-view/ask-in-client.ts) */
  askInClient: AskInClientSwitch
  /** the data dir is deleted when this Toolgate exits (`toolgate demo`): the connect snippets say so */
  temporaryDataDir?: boolean
}
