// What the user sees of a server's sampling request before it reaches the agent's client
// (`sampling: "ask"`, docs/passthrough.md): the messages as text (each cut at a readable length,
// images and audio as a note), the system prompt, the model preferences and maxTokens. The
// request's text was masked and escaped by the core before it gets here. Pure: no Node, no DOM.

export interface SamplingMessageView {
  role: string
  /** the message's text parts; non-text parts as a note in brackets */
  text: string
  /** the text was cut at SAMPLING_MESSAGE_CHARS */
  truncated?: boolean
}

export interface SamplingView {
  messages: SamplingMessageView[]
  /** messages not shown (past SAMPLING_MAX_MESSAGES) */
  more_messages?: number
  system_prompt?: string
  model_preferences?: { hints?: string[]; cost_priority?: number; speed_priority?: number; intelligence_priority?: number }
  max_tokens: number | null
  temperature?: number
  stop_sequences?: string[]
}

export const SAMPLING_MESSAGE_CHARS = 2000
export const SAMPLING_MAX_MESSAGES = 20

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function bytesOf(base64: unknown): string {
  if (typeof base64 !== 'string') return '?'
  const n = Math.floor((base64.length * 3) / 4)
  return n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`
}

/** One content block in words: its text, or a note saying what it is. */
function blockText(b: unknown): string {
  if (!isRecord(b)) return '[unreadable content]'
  if (b.type === 'text') return typeof b.text === 'string' ? b.text : ''
  if (b.type === 'image' || b.type === 'audio') return `[${b.type}${typeof b.mimeType === 'string' ? `, ${b.mimeType}` : ''}, ${bytesOf(b.data)}: not shown]`
  return `[${typeof b.type === 'string' ? b.type : 'unknown'} content: not shown]`
}

function cut(s: string, max: number): { text: string; truncated: boolean } {
  return s.length > max ? { text: `${s.slice(0, max)}…`, truncated: true } : { text: s, truncated: false }
}

/** The request's parts the user decides on (sampling/createMessage params, already made safe). */
export function samplingView(params: Record<string, unknown>): SamplingView {
  const all = Array.isArray(params.messages) ? params.messages : []
  const messages = all.slice(0, SAMPLING_MAX_MESSAGES).map((m): SamplingMessageView => {
    const r = isRecord(m) ? m : {}
    const blocks = Array.isArray(r.content) ? r.content : [r.content]
    const { text, truncated } = cut(blocks.map(blockText).join('\n'), SAMPLING_MESSAGE_CHARS)
    return { role: typeof r.role === 'string' ? r.role : '?', text, ...(truncated ? { truncated } : {}) }
  })
  const prefs = isRecord(params.modelPreferences) ? params.modelPreferences : null
  const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
  const hints = Array.isArray(prefs?.hints)
    ? prefs.hints.flatMap((h) => (isRecord(h) && typeof h.name === 'string' ? [cut(h.name, 200).text] : [])).slice(0, 10)
    : undefined
  const model = prefs
    ? Object.fromEntries(
        Object.entries({
          hints,
          cost_priority: num(prefs.costPriority),
          speed_priority: num(prefs.speedPriority),
          intelligence_priority: num(prefs.intelligencePriority),
        }).filter(([, v]) => v !== undefined),
      )
    : undefined
  const stops = Array.isArray(params.stopSequences) ? params.stopSequences.filter((s): s is string => typeof s === 'string').slice(0, 10) : undefined
  return {
    messages,
    ...(all.length > SAMPLING_MAX_MESSAGES ? { more_messages: all.length - SAMPLING_MAX_MESSAGES } : {}),
    ...(typeof params.systemPrompt === 'string' && params.systemPrompt ? { system_prompt: cut(params.systemPrompt, SAMPLING_MESSAGE_CHARS).text } : {}),
    ...(model && Object.keys(model).length > 0 ? { model_preferences: model } : {}),
    max_tokens: num(params.maxTokens) ?? null,
    ...(num(params.temperature) !== undefined ? { temperature: num(params.temperature) } : {}),
    ...(stops && stops.length > 0 ? { stop_sequences: stops } : {}),
  }
}

/** The request in a few lines of text (the CLI, a notification, the confirmation's args_text). */
export function samplingText(v: SamplingView): string {
  const lines = [
    ...(v.system_prompt ? [`system: ${v.system_prompt}`] : []),
    ...v.messages.map((m) => `[${m.role}] ${m.text}`),
    ...(v.more_messages ? [`… ${v.more_messages} more messages not shown`] : []),
    `maxTokens: ${v.max_tokens ?? 'not set'}`,
  ]
  const p = v.model_preferences
  if (p) {
    const parts = [
      ...(p.hints?.length ? [`hints ${p.hints.join(', ')}`] : []),
      ...(p.cost_priority !== undefined ? [`cost ${p.cost_priority}`] : []),
      ...(p.speed_priority !== undefined ? [`speed ${p.speed_priority}`] : []),
      ...(p.intelligence_priority !== undefined ? [`intelligence ${p.intelligence_priority}`] : []),
    ]
    if (parts.length > 0) lines.push(`model preferences: ${parts.join('; ')}`)
  }
  return lines.join('\n')
}
