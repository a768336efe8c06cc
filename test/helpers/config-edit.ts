// A config file edited from outside while `toolgate serve` runs (as another process, or an agent's
// upstream_servers update, would): one entry at a time, resolved once serve shows the edit.
import { expect } from 'vitest'
import { waitFor, writeJson, type Serve } from './cli'

/** GET /api/v1/servers/:name, read as the test's own wire shape `S`. */
export async function getServer<S>(serve: Serve, name: string): Promise<S> {
  const r = await serve.api<{ server: S }>('GET', `/api/v1/servers/${encodeURIComponent(name)}`)
  expect(r.status, r.text).toBe(200)
  return r.json.server
}

export interface EditedConfig {
  serve: Serve
  configPath: string
  /** the rest of the config file (agents, …), written unchanged around the entries */
  rest: Record<string, unknown>
  /** the `mcpServers` entries as the file holds them; an edit changes one in place */
  entries: Record<string, Record<string, unknown>>
}

/** Merges `change` into `name`'s entry, writes the file, and waits until serve's view of `name` satisfies `seen`. */
export function editEntry<S>(c: EditedConfig, name: string, change: Record<string, unknown>, seen: (s: S) => boolean): Promise<S> {
  c.entries[name] = { ...c.entries[name], ...change }
  writeJson(c.configPath, { ...c.rest, mcpServers: c.entries })
  return waitFor(
    async () => {
      const s = await getServer<S>(c.serve, name)
      return seen(s) ? s : null
    },
    20_000,
    `the edit of ${name} to show`,
  )
}
