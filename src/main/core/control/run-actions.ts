// The operator's actions on a server, a tool and a prompt, as the control service runs them: the
// options the action takes (action-options.ts), then the one catalog decision it routes to
// (catalog/decisions, server-decisions, prompt-decisions). Each answers the message the service
// records with who decided from where.
import { ApiError } from '../../../shared/api'
import { PROMPT_ACTION_OPTIONS, SERVER_ACTION_OPTIONS, TOOL_ACTION_OPTIONS } from '../../../shared/actions'
import type { ServerAction, ServerActionOptions, ToolAction, ToolActionOptions } from '../../../shared/actions'
import type { ServerConfig } from '../../../shared/config-schema'
import type { PromptAction, PromptActionOptions } from '../../../shared/prompts'
import type { Catalog } from '../catalog/catalog'
import { approveTool, rejectTool, setToolDisabled } from '../catalog/decisions'
import { approvePrompt, rejectPrompt, setPromptDisabled } from '../catalog/prompt-decisions'
import { approveServer, quarantineServer, requireReviewedLaunch, setServerEnabled } from '../catalog/server-decisions'
import { onlyOptionsOf, timedAct } from './action-options'
import type { ServiceDeps } from './deps'
import type { ServerInspect } from './inspect'

/** A server action on the configured server `s`: enable, disable, approve, quarantine, restart or Inspect. */
export async function runServerAction(
  d: ServiceDeps,
  inspects: ServerInspect,
  s: ServerConfig,
  action: ServerAction,
  options: ServerActionOptions,
): Promise<string> {
  const { catalog, manager } = d
  const name = s.name
  onlyOptionsOf(SERVER_ACTION_OPTIONS, action, options)
  const timed = timedAct(action, options.for)
  if (options.hash !== undefined) requireReviewedLaunch(catalog, s, options.hash)
  let message: string
  switch (action) {
    case 'enable':
    case 'disable':
      return setServerEnabled(catalog, { path: d.configPath, reload: () => d.reloadConfig() }, name, action === 'enable', timed)
    case 'approve':
      message = await approveServer(catalog, name, timed, options.hash)
      if (!d.running)
        message = `Approved server ${name}${timed ? ` until ${timed.until}` : ''}. Toolgate is not running now: it starts the next time Toolgate runs (the app, \`toolgate serve\`, or a client's \`toolgate stdio\`).`
      manager.sync()
      return message
    case 'quarantine':
      message = await quarantineServer(catalog, name)
      manager.sync()
      return message
    case 'restart':
      if (!d.running) throw new ApiError('not_running', `Toolgate is not running, so ${name} is not either; it starts the next time Toolgate runs.`, 409)
      if (!(await manager.restart(name))) {
        throw new ApiError('not_running', `${name} is not running (${!s.enabled ? 'disabled' : 'quarantined'}); enable or approve it first.`, 409)
      }
      return `Restarting ${name}.`
    case 'inspect':
      return inspects.run(s, options.network === true)
    default:
      throw new ApiError('unknown_action', `unknown server action "${String(action)}"; use enable, disable, approve, quarantine, restart or inspect.`, 404)
  }
}

/** A tool action: approve or reject (bound to the definition reviewed), enable (for a time) or disable. */
export async function runToolAction(catalog: Catalog, server: string, tool: string, action: ToolAction, options: ToolActionOptions): Promise<string> {
  onlyOptionsOf(TOOL_ACTION_OPTIONS, action, options)
  const timed = timedAct(action, options.for)
  switch (action) {
    case 'approve':
      return approveTool(catalog, server, tool, timed, options.hash)
    case 'reject':
      return rejectTool(catalog, server, tool, options.hash)
    case 'disable':
      return setToolDisabled(catalog, server, tool, true)
    case 'enable':
      return setToolDisabled(catalog, server, tool, false, timed)
    default:
      throw new ApiError('unknown_action', `unknown tool action "${String(action)}"; use enable, disable, approve or reject.`, 404)
  }
}

/** A prompt action: approve or reject (bound to the definition reviewed), enable or disable. */
export async function runPromptAction(catalog: Catalog, server: string, prompt: string, action: PromptAction, options: PromptActionOptions): Promise<string> {
  onlyOptionsOf(PROMPT_ACTION_OPTIONS, action, options)
  switch (action) {
    case 'approve':
      return approvePrompt(catalog, server, prompt, options.hash)
    case 'reject':
      return rejectPrompt(catalog, server, prompt, options.hash)
    case 'disable':
      return setPromptDisabled(catalog, server, prompt, true)
    case 'enable':
      return setPromptDisabled(catalog, server, prompt, false)
    default:
      throw new ApiError('unknown_action', `unknown prompt action "${String(action)}"; use enable, disable, approve or reject.`, 404)
  }
}
