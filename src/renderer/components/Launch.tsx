// What a server runs or connects to, in full (issue 11, point 2): one wrapping line on the card
// (never cut off), and the details in the Inspect confirmation. Control and bidi characters are
// shown as \u escapes; secret values arrive masked from the core.
import type { ServerLaunch } from '../../shared/launch'
import { launchText } from '../../shared/launch'
import { escapeControls } from '../../shared/text'

export function LaunchLine({ launch, protocol }: { launch: ServerLaunch; protocol: string }) {
  return (
    <p className="launch" data-launch>
      <span className="launch-kind">{launch.url !== undefined ? `connects (${protocol})` : 'runs'}</span>
      <code>{launchText(launch)}</code>
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
