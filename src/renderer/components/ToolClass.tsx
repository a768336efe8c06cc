// A tool whose server gives no annotations: it is treated as destructive, the
// user may classify it (read, write or destructive) for exactly the definition on screen, and the
// window may suggest a class from the tool's name but never applies it. A class the operator set
// in mcp_config.json (tool_classes) is shown read-only.
import { VARIANTS, callWith, type Variant } from '../../shared/call-variant'
import type { ToolInfo } from '../../shared/api'
import { suggestClass } from '../../shared/tool-class'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { LockIcon } from './icons'

const LABEL: Record<Variant, string> = { read: 'Read', write: 'Write', destructive: 'Destructive' }

const MEANS: Record<Variant, string> = {
  read: 'it only reads',
  write: 'it changes things but deletes nothing',
  destructive: 'it may delete or overwrite things',
}

/** The sentence saying how the tool's call variant is decided now. */
function stateSentence(tool: ToolInfo): string {
  const c = tool.classification
  if (tool.variant_source === 'user' && c)
    return `You classified it ${c.class}: agents call it with ${callWith(c.class)}. If its server changes it, it asks again.`
  return `Its server gives no annotations, so agents need ${tool.call_with} (the MCP spec's defaults). If you know what it does, classify it; the class holds for this definition only.`
}

export function ToolClass({ tool, nameId }: { tool: ToolInfo; nameId: string }) {
  const run = useApp((s) => s.classifyTool)
  const busy = useApp((s) => VARIANTS.some((v) => Boolean(s.busy[busyKey('tool', tool.server, tool.tool, 'classify', v)])))
  if (!tool.annotations_missing) return null
  const c = tool.classification
  if (tool.variant_source === 'organisation' && c) {
    return (
      <p className="lock-note" data-classification="organisation" data-policy="organisation">
        <LockIcon />
        <span>
          No annotations: classified {c.class}, set by your organisation (its machine-wide policy). It cannot be changed from Toolgate, the config or an agent.
        </span>
      </p>
    )
  }
  if (tool.variant_source === 'operator' && c) {
    return (
      <p className="lock-note" data-classification="operator">
        <LockIcon />
        <span>
          No annotations: classified {c.class} by the operator (<code>tool_classes</code> in mcp_config.json). This is operator policy and cannot be changed
          from Toolgate.
        </span>
      </p>
    )
  }
  const mine = tool.variant_source === 'user' ? c?.class : undefined
  const suggestion = suggestClass(tool.tool)
  return (
    <div className="tool-class" role="group" aria-label={`Classify ${tool.tool}`} data-classify={tool.name} data-classification={mine ?? 'none'}>
      <p className="small">{stateSentence(tool)}</p>
      {suggestion && !mine && (
        <p className="small muted" data-suggested-class={suggestion.class}>
          Its name suggests <strong>{suggestion.class}</strong> (it says “{suggestion.word}”). A name proves nothing: choose only what you know it does.
          Toolgate never applies a suggestion.
        </p>
      )}
      <div className="tool-class-buttons">
        {VARIANTS.map((v) => (
          <button
            key={v}
            type="button"
            className="btn btn--small"
            aria-pressed={mine === v}
            aria-label={`Classify as ${v}`}
            aria-describedby={nameId}
            title={`Agents call it with ${callWith(v)}: ${MEANS[v]}`}
            data-suggested={suggestion?.class === v && !mine ? 'true' : undefined}
            disabled={busy}
            // bound to the definition on screen: a tool that changed meanwhile is refused (409 definition_changed)
            onClick={() => void run(tool.server, tool.tool, v, tool.approval.hash)}
          >
            {LABEL[v]}
            {suggestion?.class === v && !mine ? ' (suggested)' : ''}
          </button>
        ))}
      </div>
    </div>
  )
}
