// One server: its state, lock badges, counts and actions; opened, the list of its tools.
// The container carries data-server / data-state (docs/contract.md §6).
import { useEffect } from 'react'
import type { ServerInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { isFailing } from '../../shared/summary'
import { lifecycleStateText } from '../../shared/lifecycle'
import { Badge } from './Badge'
import { Counts } from './Counts'
import { LaunchLine } from './Launch'
import { ChevronIcon, LockIcon } from './icons'
import { ServerActions } from './ServerActions'
import { ServerNotice } from './ServerNotice'
import { IsolationBadge, ServerPermissions } from './ServerIsolation'
import { ToolList } from './ToolList'
import { PromptList } from './PromptList'
import { ResourceList } from './ResourceList'
import { GrantLeft } from './GrantLeft'
import { ServerAskSwitch } from './AskSwitch'
import { AddedBy } from './AddedBy'

const STATE_LABEL: Record<ServerInfo['state'], string> = {
  connected: 'connected',
  connecting: 'connecting',
  stopped: 'stopped',
  error: 'error',
  quarantined: 'quarantined',
  disabled: 'off',
  needs_auth: 'needs sign-in',
}

/**
 * One status, one badge: the state pill says off / quarantined / failing, the counts say
 * what waits or is locked; a badge only adds what neither says.
 */
function ServerBadges({ server }: { server: ServerInfo }) {
  return (
    <>
      {server.config_policy && !server.counts.disabled_by_config && (
        <Badge tone="lock" icon={<LockIcon />} title="enabled_tools / disabled_tools in mcp_config.json apply to this server">
          locked by config
        </Badge>
      )}
      {server.policy === 'organisation' && (
        <Badge
          tone="lock"
          icon={<LockIcon />}
          title={`Set by your organisation: ${(server.organisation?.fields ?? []).join(', ') || 'this server may not run'}`}
        >
          <span data-policy="organisation">set by your organisation</span>
        </Badge>
      )}
      {server.trust === 'auto' && <Badge tone="info">auto-trust</Badge>}
      {server.grant && <GrantLeft grant={server.grant} />}
    </>
  )
}

function stateLabel(server: ServerInfo): string {
  if (server.state === 'connecting' && isFailing(server)) return 'retrying'
  if (server.state === 'quarantined' && server.quarantine_source === 'config') return 'quarantined by config'
  if (server.state === 'quarantined' && server.quarantine_source === 'organisation') return 'quarantined by your organisation'
  if (server.organisation?.blocked) return 'blocked by your organisation'
  // a stopped on-demand server is not a problem; a running one unused says when it stops
  if (server.starts_on_demand || (server.state === 'connected' && server.idle_stop_at)) return lifecycleStateText(server, Date.now())
  return STATE_LABEL[server.state]
}

export function ServerCard({ server }: { server: ServerInfo }) {
  const open = useApp((s) => s.expanded[server.name] ?? false)
  const setExpanded = useApp((s) => s.setExpanded)
  const hasTools = useApp((s) => s.tools[server.name] !== undefined)
  const loadTools = useApp((s) => s.loadTools)
  const hasPrompts = useApp((s) => s.prompts[server.name] !== undefined)
  const loadPrompts = useApp((s) => s.loadPrompts)
  const hasResources = useApp((s) => s.resources[server.name] !== undefined)
  const loadResources = useApp((s) => s.loadResources)
  const bodyId = `tools-of-${server.name}`

  useEffect(() => {
    if (open && !hasTools) void loadTools(server.name)
    if (open && !hasPrompts) void loadPrompts(server.name)
    if (open && !hasResources) void loadResources(server.name)
  }, [open, hasTools, loadTools, hasPrompts, loadPrompts, hasResources, loadResources, server.name])

  return (
    <section
      className={`server server--${server.state}`}
      data-server={server.name}
      data-state={server.state}
      data-isolated={String(server.isolation.isolated)}
      aria-label={server.name}
    >
      <div className="server-head">
        <button type="button" className="server-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setExpanded(server.name, !open)}>
          <ChevronIcon open={open} />
          <span className="server-name">{server.name}</span>
        </button>
        <span className={`state state--${server.state}${server.starts_on_demand ? ' state--on-demand' : ''}`}>
          <span className="dot" aria-hidden="true" />
          {stateLabel(server)}
        </span>
        <IsolationBadge server={server} />
        <ServerActions server={server} />
      </div>
      <div className="server-meta">
        <ServerBadges server={server} />
        <Counts server={server} />
      </div>
      <LaunchLine launch={server.launch} protocol={server.protocol} protocolVersion={server.protocol_version} />
      <ServerNotice server={server} />
      <AddedBy server={server} />
      {open && (
        <div id={bodyId} className="server-body">
          <ServerPermissions server={server} />
          <ServerAskSwitch server={server} />
          <ToolList server={server} />
          <PromptList server={server} />
          <ResourceList server={server} />
        </div>
      )}
    </section>
  )
}
