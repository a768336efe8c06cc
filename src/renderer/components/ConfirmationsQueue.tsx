// The calls waiting for the user's OK, above every view of the window (docs/confirmations.md): nothing else
// is as urgent, since each agent waits. Empty, it shows nothing.
import { useApp } from '../store/context'
import { ConfirmationCard } from './ConfirmationCard'
import './confirmations.css'

export function ConfirmationsQueue() {
  const confirmations = useApp((s) => s.confirmations)
  if (confirmations.length === 0) return null
  return (
    <section className="confirmations" aria-label="Calls waiting for your OK">
      <h2 className="confirmations-title">{confirmations.length === 1 ? 'A call waits for your OK' : `${confirmations.length} calls wait for your OK`}</h2>
      <ul className="confirmations-list">
        {confirmations.map((c) => (
          <ConfirmationCard key={c.id} c={c} />
        ))}
      </ul>
    </section>
  )
}
