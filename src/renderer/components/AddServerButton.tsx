// The Add server button (docs/contract.md §7): opens the form.
import { useApp } from '../store/context'

export function AddServerButton() {
  const openDialog = useApp((s) => s.openDialog)
  return (
    <button type="button" className="btn btn--primary" onClick={() => openDialog({ kind: 'add' })}>
      Add server
    </button>
  )
}
