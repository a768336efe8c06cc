// Inspect runs the server's program (or connects to it): the user confirms after seeing exactly
// what will run.
import type { ServerInfo } from '../../shared/api'
import { ConfirmDialog } from './ConfirmDialog'
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
  const remote = server.launch.url !== undefined
  return (
    <ConfirmDialog
      title={`Inspect ${server.name}?`}
      confirmLabel={remote ? 'Connect and inspect' : 'Run and inspect'}
      risky={false}
      marker={{ 'data-inspect-dialog': server.name }}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        {remote
          ? 'Inspect connects to this server with its headers and lists its tools.'
          : 'Inspect runs this program on your computer to list its tools, then stops it.'}{' '}
        {network && <strong>With network: this unreviewed program may reach the network while it runs. </strong>}
        Continue only if you trust what is shown here.
      </p>
      <LaunchDetails launch={server.launch} />
    </ConfirmDialog>
  )
}
