// Per-status tool counts of a server (docs/contract.md §6: data-count holds exactly the number).
import type { ServerInfo } from '../../shared/api'
import { STATUS_LABEL, type ToolStatus } from '../../shared/statuses'
import { nonZeroCounts } from '../store/selectors'
import { STATUS_TONE } from './Badge'

/** A lock on the whole server is the state pill's to say: its count just says "tools" (not "13 server off"). */
function countLabel(status: ToolStatus, n: number): string {
  if (status === 'server_disabled' || status === 'server_quarantined') return n === 1 ? 'tool' : 'tools'
  return STATUS_LABEL[status]
}

export function Counts({ server }: { server: ServerInfo }) {
  const counts = nonZeroCounts(server)
  if (counts.length === 0) return null
  return (
    <ul className="counts" aria-label={`${server.name} tools by status`}>
      {counts.map(({ status, n }) => (
        <li key={status} className={`count count--${STATUS_TONE[status]}`}>
          <span className="count-n" data-count={status}>
            {n}
          </span>{' '}
          {countLabel(status, n)}
        </li>
      ))}
    </ul>
  )
}
