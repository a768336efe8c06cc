// An agent's "Ask in its own client" switch: questions for this agent
// (confirmations, access requests) may also go to the client it runs in, when the client can show
// them. Off by default; where the operator's config or the organisation decides, it shows locked
// with who decides and why. Marker: data-ask-in-client="on|off" on the switch.
import { useId, useState } from 'react'
import type { AskInClientInfo } from '../../shared/ask-in-client'
import { useApp } from '../store/context'
import { LockIcon } from './icons'

export function AgentAskInClient({ agent, info }: { agent: string; info: AskInClientInfo }) {
  const api = useApp((s) => s.api)
  const reportError = useApp((s) => s.reportError)
  const loadAgents = useApp((s) => s.loadAgents)
  const [busy, setBusy] = useState(false)
  const id = useId()
  const set = async (on: boolean): Promise<void> => {
    setBusy(true)
    try {
      await api.setAskInClient(agent, on)
    } catch (err) {
      reportError(err)
    } finally {
      setBusy(false)
    }
    await loadAgents()
  }
  return (
    <div className="ask">
      <label className={`ask-switch${info.locked ? ' ask-switch--locked' : ''}`} htmlFor={id} data-ask-in-client={info.on ? 'on' : 'off'}>
        <input
          id={id}
          type="checkbox"
          checked={info.on}
          disabled={info.locked || busy}
          aria-describedby={`${id}-note`}
          onChange={(e) => void set(e.currentTarget.checked)}
        />
        {info.locked && <LockIcon />}
        <span>Ask in its own client</span>
      </label>
      <p id={`${id}-note`} className={info.locked ? 'lock-note ask-lock' : 'muted small'}>
        {info.note ??
          'Confirmations and access requests for this agent also appear in the client it runs in, when that client can show them; whichever answer comes first counts. Turn this on only where a person reads them there: an agent framework that lets the model answer would confirm its own calls.'}
      </p>
    </div>
  )
}
