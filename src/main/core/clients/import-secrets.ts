// `toolgate import … --secrets`: the secret-looking env and header values of the servers an
// import adds go into the secret store, and their entries get ${secret:NAME} references instead,
// so the tokens a client kept in plain JSON are not copied into another plain JSON file.
import { looksSecret, secretNameFor } from '../../../shared/secret-refs'
import type { Secrets } from '../secrets/store'

type JsonObject = Record<string, unknown>

export interface MovedSecret {
  server: string
  /** "env.GITHUB_TOKEN" or "headers.Authorization" */
  field: string
  secret: string
  /** the store already held this value under that name */
  reused: boolean
}

function entryOf(config: JsonObject, name: string): JsonObject | undefined {
  const servers = config.mcpServers
  if (Array.isArray(servers)) return servers.find((s) => s && (s as JsonObject).name === name) as JsonObject | undefined
  if (servers && typeof servers === 'object' && Object.hasOwn(servers, name)) return (servers as Record<string, JsonObject>)[name]
  return undefined
}

/**
 * Replaces the secret-looking values of the `added` servers in `config` (in place) with
 * references, storing the values (unless `dryRun`). A name already holding another value gets a
 * server suffix (`GITHUB_TOKEN_WORK`), so no stored secret is ever overwritten.
 */
export function moveSecrets(config: JsonObject, added: ReadonlyArray<{ name: string }>, store: Secrets, dryRun: boolean): MovedSecret[] {
  const moved: MovedSecret[] = []
  const planned = new Map<string, string>() // name → value, for this run (dry runs store nothing)
  const holds = (name: string): string | undefined => planned.get(name) ?? store.get(name)
  for (const { name: server } of added) {
    const entry = entryOf(config, server)
    if (!entry) continue
    for (const field of ['env', 'headers'] as const) {
      const map = entry[field]
      if (!map || typeof map !== 'object') continue
      for (const [key, raw] of Object.entries(map as Record<string, unknown>)) {
        if (typeof raw !== 'string' || !looksSecret(key, raw)) continue
        let secret = secretNameFor(server, key, field === 'env')
        let existing = holds(secret)
        if (existing !== undefined && existing !== raw) {
          secret = `${secret}_${server.toUpperCase().replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 128)
          for (let n = 2; (existing = holds(secret)) !== undefined && existing !== raw; n++) secret = `${secret.replace(/_\d+$/, '')}_${n}`
        }
        const reused = existing === raw
        if (!reused) {
          planned.set(secret, raw)
          if (!dryRun) store.set(secret, raw)
        }
        ;(map as Record<string, string>)[key] = `\${secret:${secret}}`
        moved.push({ server, field: `${field}.${key}`, secret, reused })
      }
    }
  }
  return moved
}
