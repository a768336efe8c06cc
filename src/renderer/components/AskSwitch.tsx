// "Ask me before each call" (docs/confirmations.md): the user's own switch on a tool or on a whole server. It
// only adds: where the operator's config requires confirmation the tool's switch shows locked,
// checked, with the operator's sentence; the server's switch then adds "every call" on top.
import { useId } from 'react'
import type { ServerInfo, ToolInfo } from '../../shared/api'
import { operatorConfirmSentence } from '../../shared/confirmations'
import { useApp } from '../store/context'
import { askKey } from '../store/confirmations'
import { LockIcon } from './icons'

function Switch({ server, tool, checked, locked, label }: { server: string; tool: string | null; checked: boolean; locked: boolean; label: string }) {
  const set = useApp((s) => s.setAskBeforeCall)
  const busy = useApp((s) => Boolean(s.busy[askKey(server, tool)]))
  const id = useId()
  return (
    <label className={`ask-switch${locked ? ' ask-switch--locked' : ''}`} htmlFor={id} data-ask={tool === null ? server : `${server}:${tool}`}>
      <input
        id={id}
        type="checkbox"
        checked={checked}
        disabled={locked || busy}
        aria-describedby={locked ? `${id}-lock` : undefined}
        onChange={(e) => void set(server, tool, e.currentTarget.checked)}
      />
      {locked && <LockIcon />}
      <span>{label}</span>
    </label>
  )
}

export function ToolAskSwitch({ tool }: { tool: ToolInfo }) {
  const c = tool.confirm
  const locked = c?.config === true
  return (
    <div className="ask">
      <Switch server={tool.server} tool={tool.tool} checked={c?.required === true} locked={locked} label="Ask me before each call" />
      {locked && c?.config_rule && <p className="lock-note ask-lock">{operatorConfirmSentence(c.config_rule)}</p>}
    </div>
  )
}

const LEVEL_TEXT = { write: '"confirm": "write" (write and destructive calls)', destructive: '"confirm": "destructive" (destructive calls)' } as const

export function ServerAskSwitch({ server }: { server: ServerInfo }) {
  const c = server.confirm
  const rules = [
    ...(c.config !== 'never' ? [LEVEL_TEXT[c.config]] : []),
    ...(c.config_tools.length ? [`"confirm_tools": ${c.config_tools.map((t) => JSON.stringify(t)).join(', ')}`] : []),
  ]
  return (
    <div className="ask ask--server">
      <Switch server={server.name} tool={null} checked={c.user} locked={false} label="Ask me before each call to this server" />
      <span className="muted small"> (calls wait up to {c.timeout_s} s for your answer)</span>
      {rules.length > 0 && (
        <p className="lock-note ask-lock">
          <LockIcon />
          <span>{operatorConfirmSentence(rules.join('; '))}</span>
        </p>
      )}
    </div>
  )
}
