// What a new user needs: where the config is, and how to connect an agent.
import type { AppInfo } from '../../shared/api'
import { ConnectSnippets } from './ConnectSnippets'
import { AddServerButton } from './AddServerButton'

const EXAMPLE = `{
  "mcpServers": {
    "memory": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"]
    }
  }
}`

export function ConnectHelp({ info }: { info: AppInfo | null }) {
  // the commands that write the snippet below (with this Toolgate's data dir when it is not the
  // default one); a demo's data dir goes when it exits, so it points to the user's own Toolgate
  const write = (client: string): string => {
    const s = info?.connect?.find((c) => c.client === client)
    return s && !s.temporary ? s.write_command : `toolgate connect ${client} --write`
  }
  const temporary = info?.connect?.some((c) => c.temporary) === true
  const ownDir = !temporary && info?.connect?.some((c) => c.write_command.includes(' --data-dir ')) === true
  const stdioArgs = info && ownDir ? `["stdio", "--data-dir", ${JSON.stringify(info.data_dir)}]` : '["stdio"]'
  return (
    <div className="connect">
      <h3>Connect an agent</h3>
      {temporary && (
        <p className="small" data-connect-temporary="">
          This is a demo: its data dir is deleted when it exits. The commands below connect a client to your own Toolgate (~/.toolgate).
        </p>
      )}
      <ul>
        <li>
          <strong>Claude Desktop:</strong> run <code>{write('claude-desktop')}</code>, then restart Claude Desktop.
        </li>
        <li>
          <strong>Cursor:</strong> run <code>{write('cursor')}</code> (also <code>claude-code</code>, <code>vscode</code>; without <code>--write</code> it
          prints the snippet).
        </li>
        <li>
          <strong>Any other MCP client:</strong> a stdio server with command <code>toolgate</code> and arguments <code>{stdioArgs}</code>
          {info?.mcp_url ? (
            <>
              , or Streamable HTTP at <code>{info.mcp_url}</code> with the API key
            </>
          ) : null}
          .
        </li>
      </ul>
      {info?.connect?.length ? <ConnectSnippets snippets={info.connect} /> : null}
      <p className="muted small">Agents see one server, toolgate, and find tools through retrieve_tools. Nothing runs until you approve it here.</p>
    </div>
  )
}

export function GettingStarted({ info }: { info: AppInfo | null }) {
  return (
    <div className="empty">
      <h2>No MCP servers yet</h2>
      <ol className="steps">
        <li>
          <p>
            Add a server here (paste the snippet from its README) — <AddServerButton />
          </p>
          <p>or add the MCP servers you use to the config file. Toolgate reloads it as soon as you save:</p>
          <p className="mono path">{info?.config_path ?? 'mcp_config.json in the data folder'}</p>
          <pre className="code">{EXAMPLE}</pre>
        </li>
        <li>
          <p>
            Each new server waits here in quarantine until you <strong>Inspect</strong> and <strong>Approve</strong> it.
          </p>
        </li>
        <li>
          <ConnectHelp info={info} />
        </li>
      </ol>
    </div>
  )
}
