// The resources inside what an upstream answers (docs/passthrough.md): resource links and embedded
// resources in tool results and prompt messages, and the contents of resources/read. Their URIs are
// rewritten to the ones agents read back through Toolgate (shared/resource-uri.ts; a URI that is
// not absolute, with no scheme, cannot name anything Toolgate could read and is left as it is), and
// an App's `_meta` names only origins its server may reach (app-reach.ts). A resource link is the
// same item as a listed resource, so an agent gets it as it gets a listed one (resource-text.ts:
// the standard fields, one escaped line each, cut; no icons, no keys of the server's own), and a
// link or an embedded resource whose URI is not one a list would give out (listableUri: line
// breaks, bidi, tag characters, 2,048+ characters) is left out of the answer. Resource contents
// (embedded or read) keep their known members only; their text or blob is the server's content, as
// a text block's is.
import { toAgentUri } from '../../../shared/resource-uri'
import type { ServerConfig } from '../../../shared/config-schema'
import type { EgressRule } from '../../../shared/egress'
import { appReach, confineApp, confineAppMeta } from './app-reach'
import { agentAnnotations, agentMimeType, agentResource, listableUri } from './resource-text'

type Item = Record<string, unknown>

const isRecord = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Whose answer it is: the server's name (its URIs) and what its App may reach. */
export interface BlockSource {
  name: string
  reach: readonly EgressRule[] | null
}

/** The source of a server's answers; a server no longer configured (removed during the request) reaches nothing. */
export function blockSource(name: string, config: ServerConfig | undefined): BlockSource {
  return { name, reach: config ? appReach(config) : [] }
}

function agentUri(server: string, uri: string): string {
  return toAgentUri(server, uri) ?? uri
}

/** A resource's contents (read, or embedded): the known members only, its URI rewritten, its App `_meta` confined. */
function agentContents(src: BlockSource, c: Item & { uri: string }): Item {
  const out: Item = { uri: agentUri(src.name, c.uri) }
  const mimeType = agentMimeType(c.mimeType)
  if (mimeType) out.mimeType = mimeType
  if (typeof c.text === 'string') out.text = c.text
  if (typeof c.blob === 'string') out.blob = c.blob
  if (c._meta !== undefined) out._meta = c._meta
  return confineApp(out, src.reach)
}

const hasListableUri = (v: unknown): v is Item & { uri: string } => isRecord(v) && typeof v.uri === 'string' && listableUri(v.uri)

/**
 * One content block as an agent gets it: a resource link as a listed resource, an embedded
 * resource with its contents' known members; undefined when its URI is not one to give out (or it
 * has none). Other blocks as they are.
 */
export function agentBlock(src: BlockSource, block: unknown): unknown {
  if (!isRecord(block)) return block
  if (block.type === 'resource_link') {
    if (!hasListableUri(block)) return undefined
    return { type: 'resource_link', ...agentResource(confineApp({ ...block, uri: agentUri(src.name, block.uri) }, src.reach)) }
  }
  if (block.type === 'resource') {
    if (!hasListableUri(block.resource)) return undefined
    const out: Item = { type: 'resource', resource: agentContents(src, block.resource) }
    const a = agentAnnotations(block.annotations)
    if (a) out.annotations = a
    if (block._meta !== undefined) out._meta = confineAppMeta(block._meta, src.reach)
    return out
  }
  return block
}

const namesResource = (b: unknown): boolean => isRecord(b) && (b.type === 'resource_link' || b.type === 'resource')

/** A tool result's content blocks as an agent gets them (the same object when no block names a resource). */
export function agentToolResult<T extends { content?: unknown }>(src: BlockSource, result: T): T {
  if (!Array.isArray(result.content) || !result.content.some(namesResource)) return result
  return { ...result, content: result.content.map((b) => agentBlock(src, b)).filter((b) => b !== undefined) }
}

/** Prompt messages ({role, content}) as an agent gets them: a message whose one block is left out is left out. */
export function agentMessages(src: BlockSource, messages: readonly unknown[]): unknown[] {
  const out: unknown[] = []
  for (const m of messages) {
    if (!isRecord(m)) out.push(m)
    else if (Array.isArray(m.content)) out.push({ ...m, content: m.content.map((b) => agentBlock(src, b)).filter((b) => b !== undefined) })
    else {
      const content = agentBlock(src, m.content)
      if (content !== undefined) out.push({ ...m, content })
    }
  }
  return out
}

/** resources/read contents as an agent gets them (the agent asked for that URI: none is left out). */
export function agentReadContents(src: BlockSource, contents: readonly unknown[]): unknown[] {
  return contents.map((c) => (isRecord(c) && typeof c.uri === 'string' ? agentContents(src, c as Item & { uri: string }) : c))
}
