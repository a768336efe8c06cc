// A question before a step that is hard to take back (approving a server nobody inspected):
// modal, Cancel focused first, Escape cancels. Also the frame of the Inspect confirmation.
import { useEffect, useId, useRef, type ReactNode } from 'react'

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  risky = true,
  marker,
  onConfirm,
  onCancel,
}: {
  title: string
  children: ReactNode
  confirmLabel: string
  /** the confirm button looks risky (default), or primary */
  risky?: boolean
  /** data-* attributes for the dialog element */
  marker?: Record<`data-${string}`, string>
  onConfirm: () => void
  onCancel: () => void
}) {
  const cancelRef = useRef<HTMLButtonElement>(null)
  useEffect(() => cancelRef.current?.focus(), [])
  const titleId = useId()
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        {...marker}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel()
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
        <div className="dialog-actions">
          <button type="button" className="btn" ref={cancelRef} onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className={risky ? 'btn btn--risk' : 'btn btn--primary'} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>
  )
}
