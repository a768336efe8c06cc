// The tools of one server, those that wait for the user first.
import type { ServerInfo, ToolInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { ToolRow } from './ToolRow'

const EMPTY_HINT: Partial<Record<ServerInfo['state'], string>> = {
  quarantined: 'Not inspected yet: its tools are listed once you inspect it.',
  disabled: 'The server is switched off, so it has not listed any tools yet.',
  connecting: 'Connecting — the tools appear as soon as the server answers.',
  error: 'The server is not running, so it has no tools to show.',
  stopped: 'The server is stopped.',
}

function order(tools: ToolInfo[]): ToolInfo[] {
  const waiting = tools.filter((t) => t.status === 'pending_approval')
  return waiting.length ? [...waiting, ...tools.filter((t) => t.status !== 'pending_approval')] : tools
}

export function ToolList({ server }: { server: ServerInfo }) {
  const tools = useApp((s) => s.tools[server.name])
  const error = useApp((s) => s.toolErrors[server.name])
  if (error && !tools) return <p className="notice notice--danger">Could not load the tools: {error}</p>
  if (!tools) return <p className="muted loading">Loading tools…</p>
  if (tools.length === 0) {
    const hint =
      server.starts_on_demand && !server.has_run
        ? 'It has not run yet: its tools are listed when it first starts (at its first use).'
        : EMPTY_HINT[server.state]
    return <p className="muted empty-tools">{hint ?? 'This server offers no tools.'}</p>
  }
  return (
    <ul className="tools" aria-label={`Tools of ${server.name}`}>
      {order(tools).map((t) => (
        <ToolRow key={t.name} tool={t} />
      ))}
    </ul>
  )
}
