// The servers view: one card per server, or the first steps when there are none.
import { useApp } from '../store/context'
import { ConnectHelp, GettingStarted } from './GettingStarted'
import { ServerCard } from './ServerCard'
import { AddServerButton } from './AddServerButton'

export function ServerList() {
  const servers = useApp((s) => s.servers)
  const info = useApp((s) => s.info)
  if (servers.length === 0) return <GettingStarted info={info} />
  return (
    <div className="server-list">
      <div className="list-bar">
        <AddServerButton />
      </div>
      {servers.map((s) => (
        <ServerCard key={s.name} server={s} />
      ))}
      <details className="help">
        <summary>Connect an agent · config file</summary>
        <p className="mono small path">{info?.config_path}</p>
        <ConnectHelp info={info} />
      </details>
    </div>
  )
}
