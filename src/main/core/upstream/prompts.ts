// prompts/list from an upstream (docs/passthrough.md): paginated, read loosely (one bad prompt must not hide
// the others), validated and capped like tools; then, for each prompt that needs no arguments,
// the messages prompts/get answers without any, hashed into what the user approves. Prompt text
// is untrusted: secrets are masked before anything reads it.
import { z } from 'zod'
import type { Client } from '@modelcontextprotocol/client'
import type { PromptArgument, PromptDefinition } from '../../../shared/prompts'
import { canonicalJson, sha256 } from '../state/hash'
import type { UpstreamLimits } from './types'
import { DEFAULT_MAX_TITLE_CHARS } from './tools'

const LoosePage = z.object({ prompts: z.array(z.unknown()), nextCursor: z.string().optional() }).loose()
const LooseGet = z.object({ messages: z.array(z.unknown()) }).loose()

const MAX_PAGES = 1000
const MAX_NAME_CHARS = 256
const MAX_ARGUMENTS = 100
/** The messages of a prompt kept for review (state.json, the window) up to this size; larger ones are kept as their hash. */
export const MAX_KEPT_MESSAGES_BYTES = 32 * 1024
/** How many no-argument prompts/get run at once while listing. */
const GET_CONCURRENCY = 4
/** The longest one no-argument prompts/get may take while listing. */
const GET_TIMEOUT_MAX_MS = 10_000

export interface PromptListing {
  prompts: PromptDefinition[]
  warnings: string[]
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function cap(text: string, max: number): string {
  if (text.length <= max) return text
  let cut = text.slice(0, Math.max(0, max - 1))
  const last = cut.charCodeAt(cut.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1)
  return `${cut}…`
}

const validName = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_NAME_CHARS && !/[\u0000-\u001f\u007f]/.test(v)

function sanitizeArguments(raw: unknown, limits: UpstreamLimits): PromptArgument[] | null {
  if (raw === undefined) return []
  if (!Array.isArray(raw)) return null
  const out: PromptArgument[] = []
  const seen = new Set<string>()
  for (const a of raw.slice(0, MAX_ARGUMENTS)) {
    if (!isPlainObject(a) || !validName(a.name) || seen.has(a.name)) return null
    seen.add(a.name)
    const arg: PromptArgument = { name: a.name }
    if (typeof a.title === 'string') arg.title = cap(a.title, limits.maxTitleChars ?? DEFAULT_MAX_TITLE_CHARS)
    if (typeof a.description === 'string') arg.description = cap(a.description, limits.maxDescriptionChars)
    if (a.required === true) arg.required = true
    out.push(arg)
  }
  return out
}

/** Validate and cap a raw prompt list (no messages yet). Pure: exported for unit tests. */
export function sanitizePrompts(raw: readonly unknown[], limits: UpstreamLimits): PromptListing {
  const prompts: PromptDefinition[] = []
  const dropped: string[] = []
  const names = new Set<string>()
  for (const [i, item] of raw.entries()) {
    if (!isPlainObject(item) || !validName(item.name)) {
      dropped.push(`#${i}: invalid name`)
      continue
    }
    if (names.has(item.name)) {
      dropped.push(`"${item.name}": duplicate name`)
      continue
    }
    const args = sanitizeArguments(item.arguments, limits)
    if (!args) {
      dropped.push(`"${item.name}": invalid arguments`)
      continue
    }
    if (prompts.length >= limits.maxTools) continue
    names.add(item.name)
    const p: PromptDefinition = {
      name: item.name,
      description: typeof item.description === 'string' ? cap(item.description, limits.maxDescriptionChars) : '',
      arguments: args,
    }
    if (typeof item.title === 'string') p.title = cap(item.title, limits.maxTitleChars ?? DEFAULT_MAX_TITLE_CHARS)
    prompts.push(p)
  }
  const warnings: string[] = []
  if (dropped.length > 0) warnings.push(`dropped ${dropped.length} invalid prompt(s): ${dropped.slice(0, 5).join('; ')}${dropped.length > 5 ? '; …' : ''}`)
  if (raw.length - dropped.length > limits.maxTools)
    warnings.push(`lists more than ${limits.maxTools} prompts; only the first are used (limits.max_tools_per_server)`)
  return { prompts, warnings }
}

/** The part of a prompts/get answer that is approved: its messages, hashed; kept too when small. */
export function messagesDigest(messages: readonly unknown[]): Pick<PromptDefinition, 'messages_hash' | 'messages' | 'messages_bytes'> {
  const text = canonicalJson(messages)
  const bytes = Buffer.byteLength(text)
  return { messages_hash: sha256(text), messages_bytes: bytes, ...(bytes <= MAX_KEPT_MESSAGES_BYTES ? { messages: [...messages] } : {}) }
}

/** Runs `fn` over `items`, at most `n` at once. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++])
  }
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker))
}

/**
 * Every page of prompts/list, then the no-argument text of each prompt that needs no argument.
 * A prompt whose no-argument prompts/get fails is kept without a text (its arguments are then
 * the only way to get it, and it is approved as listed).
 */
export async function fetchPromptList(mcp: Client, limits: UpstreamLimits, timeoutMs: number, mask: <T>(raw: T) => T = (raw) => raw): Promise<PromptListing> {
  const raw: unknown[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await mcp.request({ method: 'prompts/list', params: cursor === undefined ? {} : { cursor } }, LoosePage, { timeout: timeoutMs })
    raw.push(...result.prompts)
    cursor = result.nextCursor
    if (cursor === undefined || cursor === '' || seen.has(cursor) || raw.length > limits.maxTools) break
    seen.add(cursor)
  }
  const listing = sanitizePrompts(mask(raw), limits)
  const noArgs = listing.prompts.filter((p) => !p.arguments.some((a) => a.required))
  const getTimeout = Math.min(timeoutMs, GET_TIMEOUT_MAX_MS)
  let failed = 0
  await pool(noArgs, GET_CONCURRENCY, async (p) => {
    try {
      const got = await mcp.request({ method: 'prompts/get', params: { name: p.name, arguments: {} } }, LooseGet, { timeout: getTimeout })
      Object.assign(p, messagesDigest(mask(got.messages)))
    } catch {
      failed++
    }
  })
  if (failed > 0)
    listing.warnings.push(`${failed} prompt(s) without required arguments did not answer prompts/get without arguments; they are approved as listed`)
  return listing
}
