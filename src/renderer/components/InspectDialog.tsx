// Inspect runs the server's program (or connects to it): the user confirms after seeing exactly
// what will run (issue 11, point 2).
import { useEffect, useRef } from 'react'
import type { ServerInfo } from '../../shared/api'
import { LaunchDetails } from './Launch'

export function InspectDialog({
  server,
  network = false,
  onConfirm,
  onCancel,
}: {
  server: ServerInfo
  /** Inspect with network: the program may reach the network while it runs */
  network?: boolean
  onConfirm: () => void
  onCancel: () => void
}) {
  const cancelRef = useRef<HTMLButtonElement>(null)
  useEffect(() => cancelRef.current?.focus(), [])
  const remote = server.launch.url !== undefined
  const titleId = `inspect-title-${server.name}`
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-inspect-dialog={server.name}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel()
        }}
      >
        <h2 id={titleId}>Inspect {server.name}?</h2>
        <p>
          {remote
            ? 'Inspect connects to this server with its headers and lists its tools.'
            : 'Inspect runs this program on your computer to list its tools, then stops it.'}{' '}
          {network && <strong>With network: this unreviewed program may reach the network while it runs. </strong>}
          Continue only if you trust what is shown here.
        </p>
        <LaunchDetails launch={server.launch} />
        <div className="dialog-actions">
          <button type="button" className="btn" ref={cancelRef} onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="btn btn--primary" onClick={onConfirm}>
            {remote ? 'Connect and inspect' : 'Run and inspect'}
          </button>
        </div>
      </div>
    </div>
  )
}
