// One connection's side of a server's requests to Toolgate (the guards are server-requests.ts'):
// what the connection offers, roots answered here, elicitation and sampling relayed to the agent of
// the call in flight, in either era (a 2025 request on the session, a 2026-07-28 input_required).
import { ProtocolError, ProtocolErrorCode, type Client, type ClientCapabilities } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import type { SecretMask } from '../masking/secret-mask'
import type { CallClock } from './call-clock'
import { allows, CallsInFlight, labelRequest, rootsFor, switchedOff, type AskAbout, type AskMethod, type CallAsker } from './server-requests'

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export class ServerAsks {
  /** calls in flight and the agents behind them: a request of the server reaches only its call's agent (server-requests.ts) */
  private readonly inFlight: CallsInFlight

  constructor(
    private readonly config: ServerConfig,
    /** masks this server's secrets in what it asks */
    private readonly mask: SecretMask,
  ) {
    this.inFlight = new CallsInFlight(config.name)
  }

  /** What the server may ask (the client's capabilities): roots where there are any to tell, elicitation unless switched off, sampling only when allowed. */
  capabilities(): ClientCapabilities {
    return {
      ...(rootsFor(this.config).length > 0 ? { roots: {} } : {}),
      ...(allows(this.config, 'elicitation/create') ? { elicitation: { form: {}, url: {} } } : {}),
      ...(allows(this.config, 'sampling/createMessage') ? { sampling: {} } : {}),
    }
  }

  /** A call starts: while it runs, the server's requests reach its agent (and no one else's). */
  begin(asker: CallAsker | null, clock: CallClock): { id: number; end(): void } {
    return this.inFlight.begin(asker, clock)
  }

  /**
   * A 2025 server's requests to Toolgate: roots/list is answered here; elicitation/create and
   * sampling/createMessage reach the agent of the one call in flight (server-requests.ts).
   */
  answerOn(mcp: Client): void {
    if (rootsFor(this.config).length > 0) mcp.setRequestHandler('roots/list', () => ({ roots: rootsFor(this.config) }))
    const relay = async (method: AskMethod, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> => {
      if (!allows(this.config, method)) throw switchedOff(this.config.name, method)
      // the answer as its answerer gave it: a form's defaults are the form's to show (elicit-form.ts shownDefaults)
      return this.inFlight.ask(this.inFlight.forUnnamed(method), method, this.labelled(method, params), signal, this.about(method, params))
    }
    for (const method of ['elicitation/create', 'sampling/createMessage'] as const) {
      if (allows(this.config, method)) mcp.setRequestHandler(method, async (req, ctx) => (await relay(method, req.params, ctx.mcpReq.signal)) as never)
    }
    // a server that asks what it was not offered learns why not, and what to set
    mcp.fallbackRequestHandler = async (req) => {
      if (req.method === 'elicitation/create' || req.method === 'sampling/createMessage') throw switchedOff(this.config.name, req.method)
      // roots not offered: none
      if (req.method === 'roots/list') return { roots: [] }
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found')
    }
  }

  /** One request embedded in a 2026-07-28 server's input_required, for call `id`: roots here, the rest to its agent. */
  async answerInput(id: number, entry: unknown, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    const e = isRecord(entry) ? entry : {}
    const method = e.method
    const params = isRecord(e.params) ? e.params : {}
    if (method === 'roots/list') return { roots: rootsFor(this.config) }
    if (method !== 'elicitation/create' && method !== 'sampling/createMessage') {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `server "${this.config.name}" asked for ${String(method)}, which Toolgate does not relay`)
    }
    if (!allows(this.config, method)) throw switchedOff(this.config.name, method)
    return this.inFlight.ask(id, method, this.labelled(method, params), signal ?? new AbortController().signal, this.about(method, params))
  }

  /** A server's request as the agent's client gets it: masked, escaped, labelled with the server. */
  private labelled(method: AskMethod, params: Record<string, unknown>): Record<string, unknown> {
    return labelRequest(this.config.name, method, params, (t) => this.mask.text(t))
  }

  /** Who asks (the configured name), the request unlabelled for the Toolgate window, and the user's sampling switch. */
  private about(method: AskMethod, params: Record<string, unknown>): AskAbout {
    return {
      server: this.config.name,
      plain: labelRequest(this.config.name, method, params, (t) => this.mask.text(t), false),
      confirmFirst: method === 'sampling/createMessage' && this.config.sampling === 'ask',
    }
  }
}
