// One click from "agents wanted this locked tool" to the tool's row in the Servers view.
import { useApp } from '../store/context'
import { revealTool } from '../lib/reveal'

export function ReviewButton({ id }: { id: string }) {
  const setTab = useApp((s) => s.setTab)
  const setExpanded = useApp((s) => s.setExpanded)
  const server = id.slice(0, id.indexOf(':'))
  return (
    <button
      type="button"
      className="btn btn--small"
      aria-label={`Review ${id}`}
      onClick={() => {
        setTab('servers')
        setExpanded(server, true)
        revealTool(id)
      }}
    >
      Review
    </button>
  )
}
