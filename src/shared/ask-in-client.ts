// Whether an agent's questions (a call's confirmation, an access request) may go to its own client
// too (ask_in_client), and on whose word. The organisation's policy can forbid it
// (for every agent, or all but a list); the operator's config can set it either way, which locks
// it; otherwise it is the user's switch in the window (state.json), off until they turn it on.
// Pure: the rule every surface uses, and its words.
import { SET_BY_ORGANISATION, type OrganisationPolicy } from './policy'

/** On whose word the switch stands: the default (off), the user, the operator's config, the organisation's policy. */
export type AskInClientSource = 'default' | 'user' | 'config' | 'organisation'

export interface AskInClientInfo {
  on: boolean
  source: AskInClientSource
  /** the user cannot change it (the config or the organisation decided) */
  locked: boolean
  /** why it is locked, in words for every surface */
  note?: string
}

/** What the window, the CLI and the API say when the operator's config sets it. */
export const ASK_IN_CLIENT_CONFIG_NOTE =
  'Set by the operator in mcp_config.json ("ask_in_client" of this agent); only the operator can change it, by editing the config.'

/** What they say when the organisation's policy forbids it. */
export const ASK_IN_CLIENT_ORGANISATION_NOTE = `Off: ${SET_BY_ORGANISATION} (ask_in_client in its machine-wide policy.json); questions for this agent are answered in the Toolgate window only.`

/** Whether the organisation's policy lets this agent be asked in its client at all (an unusable policy: no). */
export function organisationAllowsAskInClient(p: OrganisationPolicy | undefined, agent: string): boolean {
  if (!p) return true
  if (p.error) return false
  const a = p.ask_in_client
  if (a === undefined || a === true) return true
  if (a === false) return false
  return a.includes(agent)
}

/**
 * The switch of one agent: the organisation's "no" first, then the operator's value in the
 * config (either way, locked), then the user's, else off.
 */
export function askInClientOf(agent: string, config: boolean | undefined, user: boolean | undefined, org: OrganisationPolicy | undefined): AskInClientInfo {
  if (!organisationAllowsAskInClient(org, agent)) return { on: false, source: 'organisation', locked: true, note: ASK_IN_CLIENT_ORGANISATION_NOTE }
  if (config !== undefined) return { on: config, source: 'config', locked: true, note: ASK_IN_CLIENT_CONFIG_NOTE }
  if (user !== undefined) return { on: user, source: 'user', locked: false }
  return { on: false, source: 'default', locked: false }
}
