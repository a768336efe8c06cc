// Sign-ins in progress, keyed by their OAuth `state`: 256 random bits, bound to one server and
// the URL it had, valid for a short time, and usable once (taken out on first use, whatever the
// outcome). A new sign-in of the same server ends the one before it. The redirect to
// /oauth/callback is accepted only with a state found here, which defeats forged and replayed
// redirects (CSRF): a page that makes the browser call the callback cannot know a live state.
import { randomBytes } from 'node:crypto'
import type { OAuthDiscoveryState } from '@modelcontextprotocol/client'
import { Deferred } from '../../../shared/deferred'

export const FLOW_TTL_MS = 10 * 60_000
/** How long the code exchange of a sign-in may take once its redirect came (a token endpoint answers in a second or two). */
export const EXCHANGE_TTL_MS = 2 * 60_000
const STATE_RE = /^[A-Za-z0-9_-]{43}$/

export interface FlowOutcome {
  ok: boolean
  message: string
}

export interface SignInFlow {
  readonly state: string
  readonly server: string
  /** the server URL it was started for */
  readonly url: string
  readonly redirectUrl: string
  readonly createdAt: number
  readonly expiresAt: number
  /** PKCE code verifier (memory only, never stored) */
  verifier?: string
  /** the authorization server found when the sign-in started: the code goes back to that one */
  discovery?: OAuthDiscoveryState
  resourceMetadataUrl?: string
  authorizationUrl?: string
  /** the scope the authorization URL asks for */
  scopeRequested?: string
  /** settles when the callback came (or the flow ended otherwise) */
  readonly done: Promise<FlowOutcome>
  /** why it ended before its code exchange was through (the server removed, signed out, superseded); null while live */
  readonly endedBecause: string | null
  finish(outcome: FlowOutcome): void
}

export type TakeResult = { flow: SignInFlow } | { error: string }

export class PendingFlows {
  private readonly byState = new Map<string, SignInFlow>()
  /**
   * flows taken by their callback whose code is being exchanged, with when the exchange must be
   * through: a removal or sign-out ends them too, and so does that time (an authorization server
   * that never answers the token request must not keep the sign-in under way forever)
   */
  private readonly exchanging = new Map<SignInFlow, number>()

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = FLOW_TTL_MS,
    private readonly exchangeMs = EXCHANGE_TTL_MS,
  ) {}

  /** A new flow for `server`; one already pending for it ends ("superseded"). */
  create(server: string, url: string, redirectUrl: string): SignInFlow {
    this.cancel(server, 'a newer sign-in of this server was started')
    const createdAt = this.now()
    const outcome = new Deferred<FlowOutcome>()
    let settled = false
    let endedBecause: string | null = null
    const flow: SignInFlow = {
      state: randomBytes(32).toString('base64url'),
      server,
      url,
      redirectUrl,
      createdAt,
      expiresAt: createdAt + this.ttlMs,
      done: outcome.promise,
      get endedBecause() {
        return endedBecause
      },
      finish(o) {
        if (settled) return
        settled = true
        if (!o.ok) endedBecause = o.message
        outcome.resolve(o)
      },
    }
    this.byState.set(flow.state, flow)
    return flow
  }

  /** The flow of this state, removed so it cannot be used again; an error for anything else. */
  take(state: string | null): TakeResult {
    this.sweep()
    if (!state || !STATE_RE.test(state)) return { error: 'the redirect carries no valid state' }
    const flow = this.byState.get(state)
    if (!flow) return { error: 'the state is unknown, already used or expired (start the sign-in again)' }
    this.byState.delete(state)
    this.exchanging.set(flow, this.now() + this.exchangeMs)
    void flow.done.then(() => this.exchanging.delete(flow))
    return { flow }
  }

  /** The sign-in of `server` still under way, if any: waiting for its redirect, or taken by the
   *  redirect and exchanging its code (until it ends, the sign-in is neither done nor failed). */
  of(server: string): SignInFlow | null {
    this.sweep()
    for (const f of this.byState.values()) if (f.server === server) return f
    for (const f of this.exchanging.keys()) if (f.server === server) return f
    return null
  }

  /** Ends the sign-ins of `server`: pending ones, and one whose code is being exchanged (its tokens are then not kept). */
  cancel(server: string, why: string): void {
    for (const [state, f] of this.byState) {
      if (f.server !== server) continue
      this.byState.delete(state)
      f.finish({ ok: false, message: why })
    }
    for (const f of this.exchanging.keys()) if (f.server === server) f.finish({ ok: false, message: why })
  }

  /** Removes a flow that never got its redirect URL (the start failed). */
  drop(flow: SignInFlow): void {
    this.byState.delete(flow.state)
  }

  private sweep(): void {
    const t = this.now()
    for (const [state, f] of this.byState) {
      if (f.expiresAt > t) continue
      this.byState.delete(state)
      f.finish({ ok: false, message: 'the sign-in was not completed in time' })
    }
    // its tokens, should they still come, are then not kept (finishSignIn reads endedBecause)
    for (const [f, until] of this.exchanging) {
      if (until > t) continue
      this.exchanging.delete(f)
      f.finish({ ok: false, message: `the authorization server did not answer the code exchange within ${this.exchangeMs / 1000} s` })
    }
  }
}
