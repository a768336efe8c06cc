// What a request means to do (read or change), from its leading verb or its form, and how that
// re-ranks tools by what their call variant says they do: a request to read prefers
// tools that read, a request to change prefers tools that change; neither kind is ever hidden,
// the other kind only ranks lower (its score × (1 − weight)).
//
// A tool's effect comes from its call variant (src/shared/call-variant.ts, the one the call gate
// uses): read → reads; write or destructive → changes. A tool whose server gave no hints gets the
// MCP spec's defaults there (not read-only, may destroy); whether ranking counts that default as
// "changes" or as unknown is the `unhinted` option (docs/retrieval.md has the measurement).
import type { Variant } from '../../../shared/call-variant'
import { SYNONYM_GROUPS } from './synonyms'
import { stem } from './stem'

export type Effect = 'read' | 'change'

/** Per-tool effect codes, as the index stores them. */
export const EFFECT_UNKNOWN = 0
export const EFFECT_READ = 1
export const EFFECT_CHANGE = 2

export interface IntentOptions {
  /** how much lower a tool of the other effect ranks: its score × (1 − weight); 0 = off */
  weight: number
  /** a tool without hints (call variant from the spec's defaults): 'change' like its variant, or unknown */
  unhinted: 'change' | 'unknown'
}

/**
 * The effect code of a tool from its call variant. `hinted` false: the tool gives no hints and
 * nobody classified it, so its variant is the spec's default (destructive) whatever `variant` says.
 */
export function effectCode(variant: Variant | undefined, hinted: boolean, o: IntentOptions): number {
  if (variant === undefined) return EFFECT_UNKNOWN
  if (!hinted) return o.unhinted === 'change' ? EFFECT_CHANGE : EFFECT_UNKNOWN
  return variant === 'read' ? EFFECT_READ : EFFECT_CHANGE
}

// The effect of each action group of synonyms.ts, by its first word. run/execute and
// convert/transform stay unknown: running a query or converting a unit may read or change.
const GROUP_EFFECT: Readonly<Record<string, Effect>> = {
  create: 'change',
  delete: 'change',
  update: 'change',
  save: 'change',
  move: 'change',
  copy: 'change',
  send: 'change',
  stop: 'change',
  list: 'read',
  get: 'read',
  search: 'read',
  compare: 'read',
  summarize: 'read',
}

// Verbs outside those groups. Provenance: the verbs that open the names of tools the reference
// servers annotate read-only (git show/diff) or not (git commit/checkout/reset, set_config_value,
// mark_task_done, upload_file), and everyday verbs of asking to know (check, see, tell, describe).
const MORE_READ = ['check', 'see', 'tell', 'print', 'describe', 'inspect', 'browse']
const MORE_CHANGE = [
  'set',
  'rename',
  'commit',
  'stage',
  'unstage',
  'reset',
  'switch',
  'checkout',
  'put',
  'replace',
  'overwrite',
  'upload',
  'install',
  'mark',
  'apply',
]

/** stemmed verb → effect */
export function verbEffects(stemWith: (word: string) => string = stem): ReadonlyMap<string, Effect> {
  const out = new Map<string, Effect>()
  for (const g of SYNONYM_GROUPS) {
    const effect = g.kind === 'action' ? GROUP_EFFECT[g.words[0]] : undefined
    if (effect) for (const w of g.words) out.set(stemWith(w), effect)
  }
  for (const w of MORE_READ) out.set(stemWith(w), 'read')
  for (const w of MORE_CHANGE) out.set(stemWith(w), 'change')
  return out
}

let defaultVerbs: ReadonlyMap<string, Effect> | null = null

// A question asks to know something: it opens with a wh-word or an auxiliary, or ends with "?".
const QUESTION_OPENERS: ReadonlySet<string> = new Set(
  'what which who whom whose where when why how is are was were do does did has have can could will would should'.split(' '),
)

/**
 * What a request means to do: the effect its clauses' leading verbs (synonyms.ts leadingVerb)
 * agree on; none when they disagree ("find the report and delete it"); when no leading verb has
 * an effect, "read" for a question ("what's in my downloads?"); else none.
 */
export function requestEffect(query: string, words: readonly string[], leads: Iterable<string>, verbs?: ReadonlyMap<string, Effect>): Effect | undefined {
  const table = verbs ?? (defaultVerbs ??= verbEffects())
  const said = new Set<Effect>()
  for (const lead of leads) {
    const e = table.get(lead)
    if (e) said.add(e)
  }
  if (said.size === 1) return [...said][0]
  if (said.size > 1) return undefined
  if (query.trimEnd().endsWith('?') || (words.length > 0 && QUESTION_OPENERS.has(words[0]))) return 'read'
  return undefined
}

/** The factor a tool's score is multiplied by: 1, or 1 − weight when its effect is the other one. */
export function intentFactor(intent: Effect | undefined, code: number, weight: number): number {
  if (intent === undefined || code === EFFECT_UNKNOWN || weight <= 0) return 1
  const wanted = intent === 'read' ? EFFECT_READ : EFFECT_CHANGE
  return code === wanted ? 1 : 1 - weight
}
