// The resource URIs inside what an upstream answers (docs/passthrough.md): resource links and
// embedded resources in tool results and prompt messages, and the contents of resources/read,
// rewritten to the URIs agents read back through Toolgate (shared/resource-uri.ts). A URI that is
// not absolute (no scheme) cannot name anything Toolgate could read and is left as it is.
import { toAgentUri } from '../../../shared/resource-uri'

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function agentUri(server: string, uri: unknown): unknown {
  return typeof uri === 'string' ? (toAgentUri(server, uri) ?? uri) : uri
}

/** One content block with its resource URI rewritten (resource_link, resource); others as they are. */
export function rewriteBlock(server: string, block: unknown): unknown {
  if (!isRecord(block)) return block
  if (block.type === 'resource_link' && typeof block.uri === 'string') return { ...block, uri: agentUri(server, block.uri) }
  if (block.type === 'resource' && isRecord(block.resource) && typeof block.resource.uri === 'string')
    return { ...block, resource: { ...block.resource, uri: agentUri(server, block.resource.uri) } }
  return block
}

/** A tool result's content blocks, rewritten (the same object when nothing names a resource). */
export function rewriteToolResult<T extends { content?: unknown }>(server: string, result: T): T {
  if (!Array.isArray(result.content) || !result.content.some((b) => isRecord(b) && (b.type === 'resource_link' || b.type === 'resource'))) return result
  return { ...result, content: result.content.map((b) => rewriteBlock(server, b)) }
}

/** Prompt messages ({role, content}), their resource blocks rewritten. */
export function rewriteMessages(server: string, messages: readonly unknown[]): unknown[] {
  return messages.map((m) => {
    if (!isRecord(m)) return m
    const content = Array.isArray(m.content) ? m.content.map((b) => rewriteBlock(server, b)) : rewriteBlock(server, m.content)
    return { ...m, content }
  })
}

/** resources/read contents: each one's uri rewritten. */
export function rewriteContents(server: string, contents: readonly unknown[]): unknown[] {
  return contents.map((c) => (isRecord(c) && typeof c.uri === 'string' ? { ...c, uri: agentUri(server, c.uri) } : c))
}
