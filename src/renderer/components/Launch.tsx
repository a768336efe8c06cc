// What a server runs or connects to, in full: one wrapping line on the card
// (never cut off), and the details in the Inspect confirmation. Control and bidi characters are
// shown as \u escapes; secret values arrive masked from the core.
import type { ServerLaunch } from '../../shared/launch'
import { launchText } from '../../shared/launch'
import { escapeControls } from '../../shared/text'

/** "MCP 2026-07-28 (stateless)" / "MCP 2025-11-25": the protocol the server speaks, as it agreed when it connected. */
export function protocolVersionText(version: string): string {
  return version >= '2026-07-28' ? `MCP ${version} (stateless)` : `MCP ${version}`
}

export function LaunchLine({ launch, protocol, protocolVersion }: { launch: ServerLaunch; protocol: string; protocolVersion?: string | null }) {
  return (
    <p className="launch" data-launch>
      <span className="launch-kind">{launch.url !== undefined ? `connects (${protocol})` : 'runs'}</span>
      <code>{launchText(launch)}</code>
      {protocolVersion ? (
        <span className="launch-protocol" data-protocol-version={protocolVersion} title="The MCP protocol version this server agreed to when it connected">
          {protocolVersionText(protocolVersion)}
        </span>
      ) : null}
    </p>
  )
}

export function LaunchDetails({ launch }: { launch: ServerLaunch }) {
  const rows: Array<[string, string]> = []
  if (launch.url !== undefined) {
    rows.push(['URL', launch.url])
    if (launch.header_names?.length) rows.push(['headers', launch.header_names.join(', ')])
  } else {
    if (launch.command !== undefined) rows.push(['command', launch.command])
    ;(launch.args ?? []).forEach((a, i) => rows.push([`argument ${i + 1}`, a]))
    if (launch.cwd !== undefined) rows.push(['working directory', launch.cwd])
    for (const e of launch.env ?? []) rows.push([`env ${e.name}`, e.masked ? `${e.value} (hidden: looks like a secret)` : e.value])
  }
  return (
    <dl className="launch-details">
      {rows.map(([k, v], i) => (
        <div key={i}>
          <dt>{escapeControls(k)}</dt>
          <dd>
            <code>{escapeControls(v)}</code>
          </dd>
        </div>
      ))}
    </dl>
  )
}
