// The small menu beside Re-enable / Approve / Enable server / Approve server: the same act for a
// time (30 minutes, 1 hour, 8 hours), after which it goes back by itself.
import { useEffect, useId, useRef, useState } from 'react'
import { ClockIcon } from './icons'

export const DURATIONS: Array<{ for: string; label: string }> = [
  { for: '30m', label: 'For 30 minutes' },
  { for: '1h', label: 'For 1 hour' },
  { for: '8h', label: 'For 8 hours' },
]

export function TimedMenu({ label, disabled, onPick, small }: { label: string; disabled?: boolean; onPick(grantFor: string): void; small?: boolean }) {
  const [open, setOpen] = useState(false)
  const menuId = useId()
  const ref = useRef<HTMLSpanElement>(null)
  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', close)
    return () => document.removeEventListener('mousedown', close)
  }, [open])
  return (
    <span className="timed" ref={ref}>
      <button
        type="button"
        className={small ? 'btn btn--small btn--menu' : 'btn btn--menu'}
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        disabled={disabled}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      >
        <ClockIcon />
        {/* words beside the clock: an icon alone did not say what the menu does */}
        <span className="timed-text" aria-hidden="true">
          For a time
        </span>
        <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <span className="timed-menu" role="menu" id={menuId}>
          {DURATIONS.map((d) => (
            <button
              key={d.for}
              type="button"
              role="menuitem"
              className="timed-item"
              onClick={() => {
                setOpen(false)
                onPick(d.for)
              }}
            >
              {d.label}
            </button>
          ))}
        </span>
      )}
    </span>
  )
}
