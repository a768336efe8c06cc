// Upgrades of state.json. Version 1 → 2: the approval hash now covers title and
// every annotation, and a server's identity covers env. An old record is carried over only when it
// is what version 1 wrote: a tool approval whose stored hash is the version-1 hash of the stored
// definition gets the version-2 hash of that same definition (so upgrading never turns approved
// tools into "changed" by itself, and an annotation or title that changed after the approval is
// caught at the next connect); a server approval whose identity is the version-1 identity of the
// server as configured now gets its version-2 identity. Anything else is left to fail closed.
import type { ServerConfig } from '../../../shared/config-schema'
import { serverIdentity, serverIdentityV1, toolHash, toolHashV1 } from './hash'
import type { State } from './schema'

export const STATE_VERSION = 2

/** Version-1 tool records to version 2, in place. Returns how many approvals were carried over. */
export function migrateToolHashes(state: State): number {
  let n = 0
  for (const [id, rec] of Object.entries(state.tools)) {
    const a = rec.approved
    if (!a) continue
    const name = id.slice(id.indexOf(':') + 1)
    const def = { name, title: a.title, description: a.description, inputSchema: a.inputSchema, outputSchema: a.outputSchema, annotations: a.annotations }
    if (toolHashV1(def) !== a.hash) continue
    a.hash = toolHash(def)
    n++
  }
  state.version = STATE_VERSION
  return n
}

/** Version-1 server approvals to version 2 for the servers configured now, in place. */
export function migrateServerIdentities(state: State, servers: readonly ServerConfig[]): void {
  for (const s of servers) {
    const rec = state.servers[s.name]
    if (rec?.approved_identity && rec.approved_identity === serverIdentityV1(s)) rec.approved_identity = serverIdentity(s)
  }
}
