// `toolgate activity`: the activity record from the live owner's control API through the shared
// ControlClient (and, with --follow, its `activity` events as they happen), or, when nothing owns
// the data dir, read straight from <data-dir>/activity. Human lines oldest first; --json prints the API's page.
import path from 'node:path'
import { ApiError } from '../../shared/api'
import { ActivityQuerySchema, activityQueryError, matchesActivity, type ActivityEvent, type ActivityPage } from '../../shared/activity'
import { ControlClient } from '../../shared/control-client'
import { queryPage } from '../core/activity/recorder'
import { ActivityStore } from '../core/activity/store'
import { loadConfigFile } from '../core/config/load'
import { instanceKey, readLiveInstance } from '../core/state/lock'
import { resolveConfigPath, resolveDataDir } from '../core/paths'
import { UsageError } from './errors'
import { activityLine } from './print-activity'
import { printJsonText } from './output'
import type { Where } from './control-client'

export interface ActivityOptions extends Where {
  agent?: string
  server?: string
  tool?: string
  kind?: string
  outcome?: string
  since?: string
  limit?: string
  json?: boolean
  follow?: boolean
}

/** The running owner's control API (the shared client), or null when nothing owns the data dir. */
function liveOwner(where: Where): { live: ControlClient | null; dataDir: string } {
  const dataDir = resolveDataDir(where.dataDir)
  const configPath = resolveConfigPath(dataDir, where.config)
  const { config } = loadConfigFile(configPath)
  const inst = readLiveInstance(dataDir)
  if (!inst?.url) return { live: null, dataDir }
  const key = instanceKey(inst, dataDir, config.api_key)
  if (!key) throw new ApiError('no_key', `cannot find the API key of the running Toolgate (pid ${inst.pid})`, 401)
  return {
    live: new ControlClient({ key, baseUrl: inst.url, unreachableHint: `The running Toolgate (pid ${inst.pid}) did not answer.`, surface: 'cli' }),
    dataDir,
  }
}

export async function activityCmd(o: ActivityOptions): Promise<void> {
  const raw: Record<string, string> = {}
  for (const k of ['agent', 'server', 'tool', 'kind', 'outcome', 'since', 'limit'] as const) if (o[k] !== undefined) raw[k] = o[k] as string
  const parsed = ActivityQuerySchema.safeParse(raw)
  if (!parsed.success) throw new UsageError(activityQueryError(parsed.error.issues).replace(/^(\w+) /, '--$1 '))
  const q = parsed.data
  const { live, dataDir } = liveOwner(o)
  let page: ActivityPage
  if (live) page = await live.activity(q)
  else {
    const store = new ActivityStore(path.join(dataDir, 'activity'), { maxBytes: Infinity, retentionMs: Infinity, segmentBytes: Infinity }, true)
    try {
      page = queryPage(store, q, Date.now())
    } finally {
      store.close()
    }
  }
  // JSON with bidi/C1 characters as \u escapes (the same value as the API's); lines escaped by activityLine
  const print = (e: ActivityEvent): void => (o.json ? printJsonText(JSON.stringify(e)) : void process.stdout.write(activityLine(e) + '\n'))
  if (o.json && !o.follow) printJsonText(JSON.stringify(page, null, 2))
  else {
    for (const e of [...page.events].reverse()) print(e)
    if (!o.json && !o.follow && page.events.length === 0) process.stdout.write('No activity recorded yet that matches.\n')
  }
  if (!o.follow) return
  if (!live) {
    process.stderr.write(`toolgate: nothing is running on ${dataDir}, so there is nothing to follow; start \`toolgate serve\` (or the app) and try again.\n`)
    return
  }
  const { limit: _l, cursor: _c, ...filters } = q
  // runs until the process is stopped (the stream reconnects by itself if the owner restarts)
  await new Promise<never>(() => {
    live.subscribe((ev) => {
      if (ev.type !== 'activity') return
      const e = ev.data
      if (matchesActivity(e, filters, Date.now())) print(e)
    })
  })
}
