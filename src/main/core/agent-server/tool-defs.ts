// The tools Toolgate itself offers to agents, as MCP tool definitions (JSON Schema).
import type { Tool } from '@modelcontextprotocol/server'
import { VARIANTS, type Variant } from '../../../shared/call-variant'
import type { Scope } from '../access/scope'
import { MAX_QUERY_CHARS } from '../../../shared/retrieve'

export const RETRIEVE_DESCRIPTION =
  'Search every tool behind Toolgate by describing what you want to do (BM25 over tool names, descriptions and parameters); returns the best callable tools with their input schema and which call_tool_* variant to use. Always search before concluding a capability does not exist. ' +
  'Set include_disabled:true to also see tools that exist but are locked (by config, user, or quarantine), with remediation.'

const VARIANT_TEXT: Record<Variant, string> = {
  read: 'Call a read-only upstream tool found with retrieve_tools (its call_with is call_tool_read).',
  write: 'Call an upstream tool that changes state (call_with call_tool_write); also accepts read-only tools.',
  destructive: 'Call an upstream tool that may destroy data (call_with call_tool_destructive); also accepts read and write tools.',
}

export const REQUEST_ACCESS_DESCRIPTION =
  'Ask the user to unlock a tool you need that is locked: a call answered TOOL_BLOCKED, or retrieve_tools with include_disabled:true listed it with a status. ' +
  'Works when the user can lift the lock (server switched off or in quarantine, tool disabled by the user, tool new or changed and waiting for approval); ' +
  'a lock by operator policy answers not_requestable: do not retry it. Give name ("server:tool") and reason: one short sentence the user reads, saying what you will do with it. ' +
  'Set wait_s (up to 120) to wait for the answer in this call. Returns JSON {request_id, status: "pending"|"granted"|"denied"|"not_requestable", message}. ' +
  'Asking again for the same tool joins the request that waits (use it to wait longer). After "granted", call the tool as the message says ("Allow once" is exactly one call). ' +
  'Ask only for tools your task needs, and do not ask again after "denied".'

/** The definitions depend only on which variants the scope allows: built once per set (every tools/list and tools/call asks). */
const BY_VARIANTS = new Map<string, { tools: readonly Tool[]; names: ReadonlySet<string> }>()

function forScope(scope: Scope): { tools: readonly Tool[]; names: ReadonlySet<string> } {
  const key = VARIANTS.filter((v) => scope.allowsVariant(v)).join(',')
  let hit = BY_VARIANTS.get(key)
  if (!hit) {
    const tools = buildAgentTools(scope)
    hit = { tools, names: new Set(tools.map((t) => t.name)) }
    BY_VARIANTS.set(key, hit)
  }
  return hit
}

/** Toolgate's own tools for this scope (shared, read-only). */
export function agentTools(scope: Scope): readonly Tool[] {
  return forScope(scope).tools
}

/** The names of agentTools(scope). */
export function agentToolNames(scope: Scope): ReadonlySet<string> {
  return forScope(scope).names
}

function buildAgentTools(scope: Scope): Tool[] {
  const tools: Tool[] = [
    {
      name: 'retrieve_tools',
      description: RETRIEVE_DESCRIPTION,
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            maxLength: MAX_QUERY_CHARS,
            description: 'What you want to do, in plain words (e.g. "read a file", "create a github issue").',
          },
          limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Maximum number of callable tools to return (default from config, 15).' },
          include_disabled: { type: 'boolean', description: 'Also list matching tools that exist but are locked, with why and who can unlock them.' },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true },
    },
  ]
  for (const v of VARIANTS) {
    if (!scope.allowsVariant(v)) continue
    tools.push({
      name: `call_tool_${v}`,
      description: VARIANT_TEXT[v],
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool id "server:tool" from retrieve_tools.' },
          args: { type: 'object', description: "The tool's arguments, matching its inputSchema.", additionalProperties: true },
        },
        required: ['name'],
      },
      annotations: { readOnlyHint: v === 'read', destructiveHint: v === 'destructive' },
    })
  }
  tools.push(
    {
      name: 'describe_tool',
      description: 'Full definition (description, input and output schema, annotations, call_with) of one callable tool, by its "server:tool" id.',
      inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'The tool id "server:tool".' } }, required: ['name'] },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'upstream_servers',
      description:
        "List and manage the MCP servers behind Toolgate. list/get show state and, when some tools are locked, per-status tool counts. add registers a new server (name, command, args, url, protocol only; env, cwd, headers and policy are the user's to add), which always lands in quarantine until the user approves it. remove/enable/disable/restart only work when the operator allows agent server changes. No operation approves anything: approval is the user's act.",
      inputSchema: {
        type: 'object',
        properties: {
          operation: { type: 'string', enum: ['list', 'get', 'add', 'remove', 'enable', 'disable', 'restart'] },
          name: { type: 'string', description: 'Server name (all operations but list).' },
          command: { type: 'string' },
          args: { type: 'array', items: { type: 'string' } },
          url: { type: 'string' },
          protocol: { type: 'string', enum: ['stdio', 'http', 'streamable-http', 'sse', 'auto'] },
        },
        required: ['operation'],
      },
    },
    {
      name: 'request_access',
      description: REQUEST_ACCESS_DESCRIPTION,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The locked tool, "server:tool" (as retrieve_tools or the TOOL_BLOCKED answer named it).' },
          reason: { type: 'string', description: 'Why you need it, in one sentence the user reads (at most 500 characters are shown).' },
          wait_s: {
            type: 'integer',
            minimum: 0,
            maximum: 120,
            description: 'Seconds to wait for the answer in this call (default 0: return at once with status pending).',
          },
        },
        required: ['name', 'reason'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
  )
  return tools
}
