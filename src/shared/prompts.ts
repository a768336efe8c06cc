// Prompts as an upstream lists them and as Toolgate keeps them (after validation and caps in
// upstream/prompts.ts), and how the control API shows them. A prompt is text the model reads as
// instructions: it is approved like a tool, over everything an agent can read of it (name, title,
// description, arguments, and the messages prompts/get answers with no arguments). Upstream text
// is untrusted.
import type { ApprovalStatus, TimedGrantInfo } from './api'
import type { ToolStatus } from './statuses'

export interface PromptArgument {
  name: string
  title?: string
  description?: string
  required?: boolean
}

export interface PromptDefinition {
  name: string
  title?: string
  /** '' when the upstream gave none */
  description: string
  arguments: PromptArgument[]
  /**
   * SHA-256 of the canonical JSON of the messages prompts/get answers with no arguments, when the
   * prompt needs none and the server answered: part of the approval (a changed text is a change).
   */
  messages_hash?: string
  /** those messages, as the server sent them (secrets masked), when they are small enough to keep */
  messages?: unknown[]
  /** their size in bytes (JSON), also when they were too large to keep */
  messages_bytes?: number
}

/** What the user can do to a prompt: the control API routes and the CLI commands come from this list. */
export const PROMPT_ACTIONS = ['approve', 'reject', 'disable', 'enable'] as const
export type PromptAction = (typeof PROMPT_ACTIONS)[number]

/** Options of a prompt action: `hash` binds approve and reject to the definition the user reviewed (409 definition_changed when stale). */
export interface PromptActionOptions {
  hash?: string
}

/** The approved definition of a changed prompt, for the review to compare. */
export interface PreviousPrompt {
  title?: string
  description: string
  arguments: PromptArgument[]
  messages_hash?: string
  /** the approved no-argument text, as text to compare (absent when it was too large to keep, or there was none) */
  text?: string
}

/** One prompt as the control API and the window show it (`GET /api/v1/servers/:name/prompts`). */
export interface PromptInfo {
  /** "server:prompt" */
  name: string
  server: string
  prompt: string
  /** the name agents see in prompts/list: `<server>__<prompt>` (made valid as a slash command) */
  agent_name: string
  /** set when the name does not read as what it is (invisible, bidi or mixed-script characters) */
  name_warning?: string
  title?: string
  description: string
  arguments: PromptArgument[]
  /** what prompts/get answers with no arguments, as text to review (absent when the prompt needs arguments) */
  text?: string
  status: ToolStatus
  remediation?: string
  approval: {
    status: ApprovalStatus
    hash: string
    previous_description?: string
    previous?: PreviousPrompt
    rejected_at?: string
  }
  grant?: TimedGrantInfo
}

/** The messages of a prompt as plain text for review: one paragraph per message, its role first; other content as JSON. */
export function promptText(messages: readonly unknown[]): string {
  return messages
    .map((m) => {
      const msg = (m ?? {}) as { role?: unknown; content?: unknown }
      const role = typeof msg.role === 'string' ? msg.role : '?'
      const blocks = Array.isArray(msg.content) ? msg.content : [msg.content]
      const body = blocks
        .map((c) => {
          const block = (c ?? {}) as { type?: unknown; text?: unknown }
          return block.type === 'text' && typeof block.text === 'string' ? block.text : JSON.stringify(c)
        })
        .join('\n')
      return `[${role}] ${body}`
    })
    .join('\n\n')
}

/**
 * What lifts a prompt's lock, for the window and the CLI (agents never see locked prompts: they
 * are not listed, and prompts/get of one answers that it is not available).
 */
export const PROMPT_REMEDIATION: Readonly<Record<Exclude<ToolStatus, 'callable'>, string>> = {
  server_disabled: 'The server is switched off; enable the server to offer its prompts.',
  disabled_by_config:
    'Blocked by operator policy in mcp_config.json (enabled_prompts/disabled_prompts); this is NOT user-overridable: only whoever manages the config can change it.',
  server_quarantined: 'The server is in quarantine; its prompts are offered once the server is approved.',
  disabled_by_user: 'You switched this prompt off (or rejected this definition); re-enable it to offer it again (`toolgate prompts enable SERVER:PROMPT`).',
  pending_approval:
    'The prompt is new or changed since it was approved; agents do not get it until you review and approve it (`toolgate prompts approve SERVER:PROMPT`).',
  disabled_unknown: 'Toolgate could not determine whether this prompt may be offered (its state is unreadable); review it.',
}
