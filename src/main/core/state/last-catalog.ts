// The last known catalog: each server's tool list as its upstream (or an Inspect) last listed it.
// The owner keeps <data-dir>/catalog.json up to date, so operator commands run while nothing owns
// the data dir can show servers, tools and search results without starting any upstream.
import fs from 'node:fs'
import { parseOnce } from '../../../shared/parse-once'
import path from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { z } from 'zod'
import type { ToolDefinition } from '../../../shared/tool-definition'
import type { Logger } from '../log'
import type { Config, ServerConfig } from '../../../shared/config-schema'

/**
 * What of the catalog this file reads and fills, named here because the catalog sits a floor
 * above the state (docs/architecture.md): the Catalog class satisfies it.
 */
export interface CatalogLists {
  readonly currentConfig: Config
  serverConfig(name: string): ServerConfig | undefined
  setLiveTools(server: string, tools: readonly ToolDefinition[], source: 'upstream' | 'inspect'): Promise<void>
  liveTools(server: string): ToolDefinition[] | null
  liveSource(server: string): 'upstream' | 'inspect' | null
  on(event: 'changed', listener: () => void): unknown
  off(event: 'changed', listener: () => void): unknown
  /** resolves once every state change made so far is on disk (a batched one written now) */
  stateOnDisk(): Promise<void>
}

const ToolDefSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
})

const LastCatalogSchema = z.object({
  written_at: z.string(),
  servers: z.record(
    z.string(),
    z.object({
      tools: z.array(ToolDefSchema),
      /** "upstream": the server ran and listed them (so it took its baseline); "inspect": only an Inspect showed them (absent in files of before) */
      source: z.enum(['upstream', 'inspect']).optional(),
    }),
  ),
})
export type LastCatalog = z.infer<typeof LastCatalogSchema>

export function lastCatalogPath(dataDir: string): string {
  return path.join(dataDir, 'catalog.json')
}

/** The last known catalog, or null when there is none (or it is unreadable: it is only a cache). */
export function readLastCatalog(dataDir: string): LastCatalog | null {
  try {
    const parsed = parseOnce(LastCatalogSchema, JSON.parse(fs.readFileSync(lastCatalogPath(dataDir), 'utf8')))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/**
 * The servers that ran before, as catalog.json remembers them (their tools came from the running
 * upstream, which took its baseline then). A witness for the state store: a state that holds no
 * decision while servers ran was replaced or emptied behind Toolgate's back.
 */
export function serversThatRan(dataDir: string): string[] {
  const last = readLastCatalog(dataDir)
  return last ? Object.entries(last.servers).flatMap(([name, s]) => (s.source === 'upstream' && s.tools.length > 0 ? [name] : [])) : []
}

/**
 * Puts the last known tool lists into the catalog (no approvals are taken: state.json decides
 * every status). `all`: every list (operator commands while nothing runs); `listed-by-server`:
 * only the lists a running server gave (an owner starting; an Inspect's list is shown again only
 * after a new Inspect, so approving a server never baselines a list from a file).
 */
export function loadLastCatalog(catalog: CatalogLists, last: LastCatalog, which: 'all' | 'listed-by-server' = 'all'): void {
  for (const [server, { tools, source }] of Object.entries(last.servers)) {
    if (which === 'listed-by-server' && source !== 'upstream') continue
    if (catalog.serverConfig(server)) void catalog.setLiveTools(server, tools as ToolDefinition[], 'upstream')
  }
}

/** How long the owner waits after a change before writing catalog.json (changes come in bursts). */
const WRITE_DELAY_MS = 500

/** Writes catalog.json a moment after the catalog changed, one write at a time. */
export class LastCatalogWriter {
  private timer: NodeJS.Timeout | null = null
  private writing: Promise<void> = Promise.resolve()
  private readonly onChange = (): void => {
    this.timer ??= setTimeout(() => {
      this.timer = null
      void this.flush()
    }, WRITE_DELAY_MS)
  }

  constructor(
    private readonly dataDir: string,
    private readonly catalog: CatalogLists,
    private readonly logger: Logger,
  ) {
    catalog.on('changed', this.onChange)
  }

  /** Writes the current tool lists now (and waits for it). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const servers: LastCatalog['servers'] = {}
    for (const s of this.catalog.currentConfig.servers) {
      const tools = this.catalog.liveTools(s.name)
      const source = this.catalog.liveSource(s.name)
      if (tools) servers[s.name] = { tools, ...(source ? { source } : {}) }
    }
    const text = JSON.stringify({ written_at: new Date().toISOString(), servers } satisfies LastCatalog)
    // never ahead of the state: a catalog.json showing servers that ran beside a state.json
    // without their baselines (a crash between the two) is taken for a state emptied behind
    // Toolgate's back (tamper.ts), and the start fails closed
    this.writing = this.writing
      .then(() => this.catalog.stateOnDisk())
      .then(() => writeFileAtomic(lastCatalogPath(this.dataDir), text, { mode: 0o600 }))
      .catch((e: unknown) => this.logger.warn({ err: String(e) }, 'could not write catalog.json (the last known catalog for offline commands)'))
    return this.writing
  }

  async close(): Promise<void> {
    this.catalog.off('changed', this.onChange)
    await this.flush()
  }
}
