// Deterministic synthetic tool catalogs for benchmarks.
//
// Tool names are `verb_noun[_noun]` in a mix of snake_case (60 %), camelCase (25 %) and
// kebab-case (15 %); descriptions are 10–40 words: an opening "Verb the noun ..." clause followed
// by words drawn with a Zipf (s = 1) skew from a real vocabulary (every 3+-letter word of the tool
// descriptions in test/fixtures/datasets, ranked by frequency), so common words are common, as in
// real catalogs. Each tool has 1–4 parameters and some carry readOnly/destructive annotations.
// Same seed → byte-identical catalog.
import fs from 'node:fs'
import path from 'node:path'
import { REFERENCE } from './util.mjs'

export function rng(seed) {
  // mulberry32
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const VERBS = [
  'get',
  'list',
  'create',
  'delete',
  'update',
  'search',
  'find',
  'read',
  'write',
  'add',
  'remove',
  'fetch',
  'send',
  'post',
  'run',
  'execute',
  'start',
  'stop',
  'cancel',
  'query',
  'set',
  'move',
  'copy',
  'rename',
  'upload',
  'download',
  'sync',
  'export',
  'import',
  'convert',
  'parse',
  'validate',
  'merge',
  'close',
  'open',
  'archive',
  'restore',
  'publish',
  'schedule',
  'approve',
  'assign',
  'comment',
  'describe',
  'summarize',
  'analyze',
  'render',
  'resolve',
  'invite',
  'subscribe',
  'share',
  'tag',
  'lock',
  'unlock',
  'rotate',
  'scan',
  'translate',
  'compare',
  'generate',
  'check',
  'watch',
]

export const NOUNS = [
  'file',
  'files',
  'directory',
  'folder',
  'issue',
  'issues',
  'pull',
  'request',
  'repo',
  'repository',
  'branch',
  'commit',
  'tag',
  'release',
  'user',
  'users',
  'team',
  'member',
  'project',
  'task',
  'tasks',
  'ticket',
  'comment',
  'message',
  'messages',
  'channel',
  'thread',
  'email',
  'draft',
  'calendar',
  'event',
  'meeting',
  'contact',
  'document',
  'page',
  'database',
  'table',
  'row',
  'record',
  'query',
  'index',
  'schema',
  'collection',
  'bucket',
  'object',
  'blob',
  'image',
  'video',
  'audio',
  'track',
  'playlist',
  'album',
  'note',
  'notes',
  'label',
  'status',
  'workflow',
  'job',
  'pipeline',
  'build',
  'deployment',
  'service',
  'cluster',
  'node',
  'pod',
  'container',
  'volume',
  'secret',
  'key',
  'token',
  'policy',
  'role',
  'permission',
  'group',
  'invoice',
  'payment',
  'order',
  'customer',
  'product',
  'price',
  'subscription',
  'report',
  'dashboard',
  'metric',
  'metrics',
  'log',
  'logs',
  'alert',
  'incident',
  'webhook',
  'form',
  'response',
  'survey',
  'map',
  'location',
  'route',
  'weather',
  'forecast',
  'stock',
  'quote',
  'article',
  'news',
  'feed',
  'post',
  'story',
  'chart',
  'sheet',
  'cell',
  'range',
  'slide',
  'presentation',
  'template',
  'snippet',
  'gist',
  'package',
  'version',
  'dependency',
  'vulnerability',
  'domain',
  'dns',
  'certificate',
  'url',
  'link',
  'bookmark',
  'session',
  'browser',
  'screenshot',
  'element',
  'memory',
  'entity',
  'relation',
  'observation',
  'graph',
  'embedding',
  'model',
  'prompt',
  'completion',
  'transcript',
  'summary',
  'translation',
  'account',
  'balance',
  'transaction',
  'wallet',
  'address',
  'flight',
  'hotel',
  'booking',
  'train',
  'ticket',
  'recipe',
  'workspace',
  'space',
  'board',
  'card',
  'list',
  'sprint',
]

export const SERVER_NAMES = [
  'github',
  'gitlab',
  'bitbucket',
  'jira',
  'linear',
  'asana',
  'trello',
  'notion',
  'confluence',
  'slack',
  'discord',
  'teams',
  'gmail',
  'outlook',
  'google-calendar',
  'google-drive',
  'dropbox',
  'box',
  'onedrive',
  'filesystem',
  'postgres',
  'mysql',
  'sqlite',
  'mongodb',
  'redis',
  'elasticsearch',
  'aws-s3',
  'gcs',
  'kubernetes',
  'docker',
  'terraform',
  'sentry',
  'datadog',
  'pagerduty',
  'grafana',
  'stripe',
  'shopify',
  'salesforce',
  'hubspot',
  'zendesk',
  'figma',
  'spotify',
  'youtube',
  'maps',
  'weather',
  'news',
  'browser',
  'memory',
  'fetch',
  'everything',
]

let vocabCache = null
/** Every 3–14-letter word of the shared datasets' descriptions, most frequent first. */
export function vocabulary() {
  if (vocabCache) return vocabCache
  const counts = new Map()
  for (const f of ['livemcptool/tools.json', 'corpus_v1.tools.json', 'corpus_v2.tools.json']) {
    const c = JSON.parse(fs.readFileSync(path.join(REFERENCE, 'datasets', f), 'utf8'))
    for (const t of c.tools) for (const w of (t.description ?? '').toLowerCase().match(/[a-z]{3,14}/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1)
  }
  vocabCache = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w)
  return vocabCache
}

/** Zipf(s=1) sampler over ranks 0..n-1. */
export function zipf(rand, n) {
  const cdf = new Float64Array(n)
  let sum = 0
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1)
  return () => {
    const x = rand() * sum
    let lo = 0,
      hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cdf[mid] < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

const pick = (rand, arr) => arr[Math.floor(rand() * arr.length)]
const cap = (w) => w[0].toUpperCase() + w.slice(1)
const thirdPerson = (v) => (/(s|sh|ch|x|z)$/.test(v) ? `${v}es` : /[^aeiou]y$/.test(v) ? `${v.slice(0, -1)}ies` : `${v}s`)

function styleName(rand, words) {
  const r = rand()
  if (r < 0.6) return words.join('_')
  if (r < 0.85) return words[0] + words.slice(1).map(cap).join('')
  return words.join('-')
}

/**
 * `total` tools spread evenly over `servers` servers (names from SERVER_NAMES, suffixed when
 * more than 50). Returns {servers: [{name, tools: [{name, description, inputSchema, annotations?}]}]}.
 */
export function syntheticCatalog(total, { servers = 50, seed = 42 } = {}) {
  const rand = rng(seed)
  const vocab = vocabulary()
  const word = zipf(rand, vocab.length)
  const out = []
  for (let s = 0; s < servers; s++) {
    const name = s < SERVER_NAMES.length ? SERVER_NAMES[s] : `${SERVER_NAMES[s % SERVER_NAMES.length]}-${Math.floor(s / SERVER_NAMES.length)}`
    const count = Math.floor(total / servers) + (s < total % servers ? 1 : 0)
    const seen = new Set()
    const tools = []
    while (tools.length < count) {
      const verb = pick(rand, VERBS)
      const nouns = rand() < 0.55 ? [pick(rand, NOUNS)] : [pick(rand, NOUNS), pick(rand, NOUNS)]
      let toolName = styleName(rand, [verb, ...nouns])
      if (seen.has(toolName)) toolName = `${toolName}${seen.size}`
      seen.add(toolName)
      const n = 10 + Math.floor(rand() * 31)
      const words = [cap(thirdPerson(verb)), 'the', ...nouns]
      while (words.length < n) words.push(vocab[word()])
      const description = words.join(' ') + '.'
      const props = {}
      const np = 1 + Math.floor(rand() * 4)
      for (let p = 0; p < np; p++) {
        const pn = rand() < 0.5 ? `${pick(rand, NOUNS)}_id` : pick(rand, NOUNS)
        props[pn] = { type: rand() < 0.8 ? 'string' : 'number', description: `The ${pn.replace('_', ' ')} ${vocab[word()]} ${vocab[word()]}` }
      }
      const tool = { name: toolName, description, inputSchema: { type: 'object', properties: props, required: [Object.keys(props)[0]] } }
      const a = rand()
      if (a < 0.3) tool.annotations = { readOnlyHint: true }
      else if (a < 0.4) tool.annotations = { destructiveHint: true }
      else if (a < 0.5) tool.annotations = { readOnlyHint: false }
      tools.push(tool)
    }
    out.push({ name, tools })
  }
  return { servers: out }
}

/** The livemcptool corpus (527 real tools, 70 servers) as {servers: [{name, tools}]}. */
export function liveCorpus() {
  const file = path.join(REFERENCE, 'datasets/livemcptool/tools.json')
  const c = JSON.parse(fs.readFileSync(file, 'utf8'))
  const by = new Map()
  for (const t of c.tools) {
    const name = safeServerName(t.server)
    if (!by.has(name)) by.set(name, { name, corpusServer: t.server, tools: [] })
    by.get(name).tools.push({ name: t.tool, description: t.description ?? '', inputSchema: t.inputSchema ?? { type: 'object', properties: {} } })
  }
  return { file, servers: [...by.values()] }
}

export const safeServerName = (s) => s.replace(/[^A-Za-z0-9._-]+/g, '-')

/**
 * `n` queries of 1–4 words (deterministic): verbs and nouns from tool names mixed with
 * Zipf-skewed description words, so common terms (long posting lists) appear as often as they
 * would in real requests.
 */
export function queries(n, { seed = 7, catalog } = {}) {
  const rand = rng(seed)
  const vocab = vocabulary()
  const word = zipf(rand, Math.min(vocab.length, 1500))
  let nameWords = null
  if (catalog) {
    nameWords = []
    for (const s of catalog.servers)
      for (const t of s.tools) for (const w of t.name.split(/[_\-\s]+|(?<=[a-z])(?=[A-Z])/)) if (/^[A-Za-z]{3,}$/.test(w)) nameWords.push(w.toLowerCase())
  }
  const out = []
  for (let i = 0; i < n; i++) {
    const k = 1 + Math.floor(rand() * 4)
    const q = []
    for (let j = 0; j < k; j++) {
      const r = rand()
      if (r < 0.35) q.push(nameWords && nameWords.length ? pick(rand, nameWords) : pick(rand, VERBS))
      else if (r < 0.6) q.push(pick(rand, NOUNS))
      else q.push(vocab[word()])
    }
    out.push(q.join(' '))
  }
  return out
}
