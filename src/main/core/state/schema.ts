// state.json: what the user decided (server approvals, tool approvals, user locks) and agent
// token hashes. Config decisions (enabled_tools/disabled_tools, quarantined:true) never land here.
import { z } from 'zod'
import { VARIANTS } from '../../../shared/call-variant'

// Built for each read of a state file (at start; again only to compare with or restore from its
// last good copy), not kept: a running Toolgate writes the state but never parses it again, and
// these ~150 schemas held at rest were heap for nothing (docs/performance.md, memory).
function buildStateSchemas() {
  const ApprovedToolSchema = z.object({
    hash: z.string(),
    description: z.string(),
    title: z.string().optional(),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    annotations: z.record(z.string(), z.unknown()).optional(),
    /** an MCP App tool's _meta.ui */
    ui: z.record(z.string(), z.unknown()).optional(),
    approved_at: z.string().optional(),
  })

  const ServerStateSchema = z.object({
    /** identity (command+args+cwd or url) the user approved */
    approved_identity: z.string().optional(),
    /** the user put the server (back) into quarantine */
    user_quarantined: z.boolean().optional(),
    /** added by an agent: quarantined until the user approves, whatever the defaults say */
    needs_review: z.boolean().optional(),
    /** the first tool list of the approved server was taken as the baseline */
    baseline_taken: z.boolean().optional(),
    /** the first prompt list of the approved server was taken as the baseline of its prompts */
    prompt_baseline_taken: z.boolean().optional(),
    /** the first resource template list of the approved server was taken as the baseline of its templates */
    template_baseline_taken: z.boolean().optional(),
    /** the user's "Ask me before each call" on the whole server: only adds to the config's `confirm` */
    confirm: z.boolean().optional(),
    /** an agent added it, with exactly these agent-settable fields (canonical JSON); agents may remove only such servers */
    added_by_agent: z
      .object({
        /** the configured agent; "(admin)" for a session without an agent */
        agent: z.string(),
        entry: z.string(),
        /** the client name the adding session gave (untrusted, made safe) */
        client: z.string().optional(),
      })
      .optional(),
  })

  /** A definition the user rejected: while the upstream serves exactly this one, the tool stays off without asking again. */
  const RejectedDefinitionSchema = z.object({ hash: z.string(), at: z.string() })

  /** A class the user gave a tool (read, write or destructive), bound to the definition hash the user saw. */
  const ToolClassificationSchema = z.object({ class: z.enum(VARIANTS), hash: z.string(), at: z.string() })

  const ToolRecordSchema = z.object({
    approved: ApprovedToolSchema.optional(),
    user_disabled: z.boolean().optional(),
    /** definitions the user rejected (Reject), newest last; a further change asks again */
    rejected: z.array(RejectedDefinitionSchema).optional(),
    /** the user's "Ask me before each call" on this tool */
    confirm: z.boolean().optional(),
    /** the user's classification: the call variant of exactly this definition; another hash asks again */
    classified: ToolClassificationSchema.optional(),
  })

  const PromptArgumentSchema = z.object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean().optional(),
  })

  /** A prompt as the user approved it: what the review compares a later definition with. */
  const ApprovedPromptSchema = z.object({
    hash: z.string(),
    title: z.string().optional(),
    description: z.string(),
    arguments: z.array(PromptArgumentSchema),
    messages_hash: z.string().optional(),
    messages: z.array(z.unknown()).optional(),
    approved_at: z.string().optional(),
  })

  /** The user's decisions on one prompt ("server:prompt"), as for a tool: approval, Disable, Reject. */
  const PromptRecordSchema = z.object({
    approved: ApprovedPromptSchema.optional(),
    user_disabled: z.boolean().optional(),
    rejected: z.array(RejectedDefinitionSchema).optional(),
  })

  /** A resource template as the user approved it (what an agent reads of it): what the review compares a later definition with. */
  const ApprovedTemplateSchema = z.object({
    hash: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    annotations: z.record(z.string(), z.unknown()).optional(),
    _meta: z.record(z.string(), z.unknown()).optional(),
    approved_at: z.string().optional(),
  })

  /** The user's decisions on one resource template ("server:<the server's URI template>"): approval and Reject. */
  const TemplateRecordSchema = z.object({
    approved: ApprovedTemplateSchema.optional(),
    rejected: z.array(RejectedDefinitionSchema).optional(),
  })

  const AgentTokenRecordSchema = z.object({
    /** shown to the user to tell tokens apart and revoke one (older records: derived from the hash) */
    id: z.string().optional(),
    hash: z.string(),
    created_at: z.string(),
    last_used_at: z.string().optional(),
  })
  /**
   * What a time-boxed grant changed and how to put it back at expiry. Each entry undoes
   * one act: the server's `enabled` written back to the config, the server's review record, the
   * tool's user lock, or the tool's approval record (null: there was none, the tool is pending again).
   */
  const GrantUndoSchema = z.discriminatedUnion('type', [
    z.object({ type: z.literal('server_enabled') }),
    z.object({ type: z.literal('server_review'), previous: ServerStateSchema.nullable(), held: z.boolean() }),
    z.object({ type: z.literal('tool_enabled'), tool: z.string() }),
    z.object({ type: z.literal('tool_approval'), tool: z.string(), previous: ApprovedToolSchema.nullable() }),
  ])

  /**
   * A grant that ends: `timed` acts are undone at `until` (also when Toolgate was stopped then: at
   * the next start); a `once` pass lets one call of `tool` by `agent` through the gate, unused until `until`.
   */
  const GrantSchema = z.object({
    id: z.string(),
    kind: z.enum(['timed', 'once']),
    server: z.string(),
    /** the tool, for a once pass and for tool acts */
    tool: z.string().optional(),
    /** a once pass: the agent it is bound to (null: sessions without an agent) */
    agent: z.string().nullable().optional(),
    until: z.string(),
    created_at: z.string(),
    /** the access request it answered, if any */
    request_id: z.string().optional(),
    /** a once pass: the definition hash of the tool the user allowed (a changed tool gets no call from it) */
    hash: z.string().optional(),
    undo: z.array(GrantUndoSchema).default([]),
  })

  const StateSchema = z.object({
    /** 1: before title/annotations counted in the approval hash and env in the server identity (migrated on load, see migrate.ts) */
    version: z.union([z.literal(1), z.literal(2)]),
    /** SHA-256 of the text Toolgate wrote before this one: a state.json one write ahead of its last good copy (a crash between the two writes) is recognised by it (tamper.ts) */
    prev_sha256: z.string().optional(),
    /** set when a state file was unreadable: tools without a record stay locked (disabled_unknown) until reviewed */
    fail_closed: z
      .object({
        since: z.string(),
        moved_to: z.string(),
        /** the servers configured when the state was lost: they take no baseline until reviewed */
        servers: z.array(z.string()).optional(),
        /** the last good copy restored the locks (user quarantine, agent-added review, user-disabled tools); false: it was unreadable too */
        restored_locks: z.boolean().optional(),
        /** with no readable copy at all: servers held in quarantine until the user approves them (all but those the config trusts) */
        hold: z.array(z.string()).optional(),
      })
      .optional(),
    servers: z.record(z.string(), ServerStateSchema).default({}),
    tools: z.record(z.string(), ToolRecordSchema).default({}),
    /** the user's decisions on prompts, by "server:prompt" */
    prompts: z.record(z.string(), PromptRecordSchema).default({}),
    /** the user's decisions on resource templates, by "server:<the server's URI template>" */
    resource_templates: z.record(z.string(), TemplateRecordSchema).optional(),
    /** per agent, the SHA-256 of each token issued (several clients may each have their own); never the token */
    agent_tokens: z.record(z.string(), z.array(AgentTokenRecordSchema)).default({}),
    /** time-boxed grants and unused "Allow once" passes, with what to undo when they end */
    grants: z.array(GrantSchema).default([]),
    /** the user's switches per agent name: ask_in_client (the Agents view); the config's value, when it sets one, wins */
    agents: z.record(z.string(), z.object({ ask_in_client: z.boolean().optional() })).optional(),
  })
  return {
    ApprovedToolSchema,
    ServerStateSchema,
    RejectedDefinitionSchema,
    ToolClassificationSchema,
    ToolRecordSchema,
    PromptArgumentSchema,
    ApprovedPromptSchema,
    PromptRecordSchema,
    ApprovedTemplateSchema,
    TemplateRecordSchema,
    AgentTokenRecordSchema,
    GrantUndoSchema,
    GrantSchema,
    StateSchema,
  }
}
type Schemas = ReturnType<typeof buildStateSchemas>

/** The schema of state.json, built anew at each call (nothing keeps it). */
export const stateSchema = (): Schemas['StateSchema'] => buildStateSchemas().StateSchema

/** How many rejected definitions are remembered per tool (the most recent ones). */
export const MAX_REJECTED_PER_TOOL = 10

export type ApprovedTool = z.infer<Schemas['ApprovedToolSchema']>
export type ServerRecord = z.infer<Schemas['ServerStateSchema']>
export type RejectedDefinition = z.infer<Schemas['RejectedDefinitionSchema']>
export type ToolClassificationRecord = z.infer<Schemas['ToolClassificationSchema']>
export type ToolRecord = z.infer<Schemas['ToolRecordSchema']>
export type ApprovedPrompt = z.infer<Schemas['ApprovedPromptSchema']>
export type PromptRecord = z.infer<Schemas['PromptRecordSchema']>
export type ApprovedTemplate = z.infer<Schemas['ApprovedTemplateSchema']>
export type TemplateRecord = z.infer<Schemas['TemplateRecordSchema']>
export type AgentTokenRecord = z.infer<Schemas['AgentTokenRecordSchema']>
export type GrantUndo = z.infer<Schemas['GrantUndoSchema']>
export type Grant = z.infer<Schemas['GrantSchema']>
export type State = z.infer<Schemas['StateSchema']>

export function emptyState(): State {
  return { version: 2, servers: {}, tools: {}, prompts: {}, agent_tokens: {}, grants: [] }
}
