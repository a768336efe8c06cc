// Long upstream text is never cut off silently: past a few lines it folds, with a
// "Show all" button that says how much more there is. The whole text stays in the page (screen
// readers and find-in-page see it); only the box is shorter. Text nodes only, hidden characters
// as marked escapes (Visible).
import { useState, type ReactNode } from 'react'
import { Visible } from './Visible'

/** Longer than this (characters or lines), a text folds behind "Show all". */
export const FOLD_CHARS = 480
export const FOLD_LINES = 6

export function isLong(text: string): boolean {
  return text.length > FOLD_CHARS || text.split('\n').length > FOLD_LINES
}

export function LongText({ text, className, children }: { text: string; className?: string; children?: ReactNode }) {
  const [open, setOpen] = useState(false)
  const long = isLong(text)
  const folded = long && !open
  return (
    <div className={`longtext${folded ? ' longtext--folded' : ''}`} data-folded={long ? String(folded) : undefined}>
      <p className={className}>{children ?? <Visible text={text} />}</p>
      {long && (
        <button type="button" className="linklike small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show less' : `Show all (${text.length.toLocaleString('en-US')} characters)`}
        </button>
      )}
    </div>
  )
}
