// What an Inspect listed of a quarantined server besides its tools (its prompts and resource
// templates: control/inspect.ts), shared by prompts.ts and templates.ts: the server identity each
// Inspect's list was taken of, and the baseline approving the server takes from it. Approving a
// server approves exactly the prompts and templates its Inspect showed (the window and the control
// API show them while the server is on and in quarantine: Catalog.inspectedShown); every other one,
// and every one of a server approved without an Inspect, waits for review. A server trusted
// otherwise (the config, or approved before these were reviewed) takes its first list as baseline.
import type { State } from '../state/schema'

/** Per server whose live list came from an Inspect: the server identity it ran (as for tools: Catalog.inspectedTools). */
export class InspectedLists {
  private readonly as = new Map<string, string>()

  /** The server listed (`inspectedAs` undefined) or an Inspect did, of the server with this identity. */
  set(server: string, inspectedAs?: string): void {
    if (inspectedAs === undefined) this.as.delete(server)
    else this.as.set(server, inspectedAs)
  }

  /** Whether the live list is an Inspect's. */
  byInspect(server: string): boolean {
    return this.as.has(server)
  }

  /** Whether the live list is the Inspect's of the server with this identity. */
  of(server: string, identity: string): boolean {
    return this.as.get(server) === identity
  }

  forget(server: string): void {
    this.as.delete(server)
  }
}

/** The state flag that says a server's first list of a kind was reviewed or baselined. */
export type BaselineFlag = 'prompt_baseline_taken' | 'template_baseline_taken'

/**
 * Approving a server (server-decisions.ts approveServer) takes the kind's baseline from what the
 * user could see, as for its tools: `approve` records exactly `inspected` (the Inspect's list shown
 * now; null or empty: nothing), so every other definition waits for review. Nothing when the
 * server's baseline of this kind was taken before.
 */
export function baselineOnApproval<D>(
  s: State,
  server: string,
  flag: BaselineFlag,
  inspected: readonly D[] | null,
  approve: (s: State, defs: readonly D[]) => void,
): void {
  if (s.servers[server]?.[flag]) return
  s.servers[server] = { ...s.servers[server], [flag]: true }
  if (inspected?.length) approve(s, inspected)
}
