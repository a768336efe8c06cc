// When an upstream server runs (docs/lifecycle.md): "on_demand" (the default) starts it at its first use
// and stops it after idle_stop_s without use; "always" keeps it running while Toolgate runs. The
// schema pieces, the effective values of a server entry and the words every surface shows.
import { z } from 'zod'

export const LIFECYCLES = ['on_demand', 'always'] as const
export type Lifecycle = (typeof LIFECYCLES)[number]

/**
 * Ten minutes: long enough that an agent's working session (calls minutes apart while the person
 * reads) pays a server's start once, short enough that a server used once an hour gives its
 * memory back soon after (docs/lifecycle.md).
 */
export const DEFAULT_IDLE_STOP_S = 600
/** A week: longer than any idle time anybody means (0 says "never" plainly). */
export const MAX_IDLE_STOP_S = 7 * 24 * 3600

export const LifecycleSchema = z.enum(LIFECYCLES, { error: 'lifecycle must be "on_demand" (start at first use, stop when idle) or "always"' })

const IDLE_HELP = `idle_stop_s must be a whole number of seconds from 0 (never stop) to ${MAX_IDLE_STOP_S}`
export const IdleStopSchema = z.number({ error: IDLE_HELP }).int(IDLE_HELP).min(0, IDLE_HELP).max(MAX_IDLE_STOP_S, IDLE_HELP)

/** The server's lifecycle; absent = on_demand (docs/contract.md §8). */
export function lifecycleOf(server: { lifecycle?: Lifecycle }): Lifecycle {
  return server.lifecycle ?? 'on_demand'
}

/** Seconds without use before an on-demand server stops (0 = never): the server's own, else the top level's, else the default. */
export function idleStopSeconds(config: { idle_stop_s?: number }, server: { idle_stop_s?: number }): number {
  return server.idle_stop_s ?? config.idle_stop_s ?? DEFAULT_IDLE_STOP_S
}

/** What a stopped server that starts at its next use is called on every surface. */
export const STARTS_ON_FIRST_USE = 'stopped (starts on first use)'

/** "idle (stops in 9 min unless used)" for a running on-demand server with no call in flight. */
export function idleText(stopsAt: number, now: number): string {
  const s = Math.max(0, Math.round((stopsAt - now) / 1000))
  const when = s < 90 ? `${s} s` : `${Math.round(s / 60)} min`
  return `idle (stops in ${when} unless used)`
}

/** A server's state in words where the lifecycle matters: "stopped (starts on first use)", "connected, idle (…)"; else the state. */
export function lifecycleStateText(s: { state: string; starts_on_demand?: true; idle_stop_at?: string; has_run?: boolean }, now: number): string {
  if (s.starts_on_demand) return s.has_run === false ? `${STARTS_ON_FIRST_USE}, not run yet` : STARTS_ON_FIRST_USE
  if (s.state === 'connected' && s.idle_stop_at) {
    const at = Date.parse(s.idle_stop_at)
    if (!Number.isNaN(at)) return `connected, ${idleText(at, now)}`
  }
  return s.state
}
