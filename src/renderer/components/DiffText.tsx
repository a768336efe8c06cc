// A text diff as the window shows it: one side (previous or new) with the removed or added text
// marked. Added text is marked as a risk (agents read it as instructions), never as a reassuring
// green. A long unchanged stretch folds to its ends behind a button; changed text never folds.
// Rendered as text nodes only, hidden characters as marked escapes: the texts are the upstream's.
import { useState } from 'react'
import { side, type TextPart } from '../../shared/tool-diff'
import { Visible } from './Visible'

/** An unchanged stretch longer than this folds to its first and last FOLD_KEEP characters. */
const FOLD_SAME = 360
const FOLD_KEEP = 120

export function DiffSide({ diff, which }: { diff: readonly TextPart[]; which: 'before' | 'after' }) {
  const [open, setOpen] = useState(false)
  const parts = side(diff, which)
  const folds = !open && parts.some((p) => p.op === 'same' && p.text.length > FOLD_SAME)
  const hidden = parts.reduce((n, p) => n + (p.op === 'same' && p.text.length > FOLD_SAME ? p.text.length - 2 * FOLD_KEEP : 0), 0)
  return (
    <>
      {parts.map((p, i) => {
        if (p.op === 'del')
          return (
            <del key={i}>
              <Visible text={p.text} />
            </del>
          )
        if (p.op === 'add')
          return (
            <ins key={i} title="added: agents will read this">
              <Visible text={p.text} />
            </ins>
          )
        if (!folds || p.text.length <= FOLD_SAME)
          return (
            <span key={i}>
              <Visible text={p.text} />
            </span>
          )
        return (
          <span key={i}>
            <Visible text={p.text.slice(0, FOLD_KEEP)} />
            <span className="fold-mark" aria-hidden="true">
              {' … '}
            </span>
            <Visible text={p.text.slice(-FOLD_KEEP)} />
          </span>
        )
      })}
      {folds && (
        <button type="button" className="linklike small fold-button" aria-expanded={false} onClick={() => setOpen(true)}>
          Show all ({hidden.toLocaleString('en-US')} unchanged characters folded)
        </button>
      )}
    </>
  )
}

/** A changed text field as previous / new, side by side (stacked when narrow). */
export function FieldDiff({ label, diff, code }: { label: string; diff: readonly TextPart[]; code?: boolean }) {
  const Block = code ? 'pre' : 'p'
  const empty = (which: 'before' | 'after') => side(diff, which).length === 0
  return (
    <div className="diff" data-diff={label}>
      <div className="diff-side diff-before">
        <span className="diff-label">Previous {label}</span>
        <Block>{empty('before') ? <em className="muted">(none)</em> : <DiffSide diff={diff} which="before" />}</Block>
      </div>
      <div className="diff-side diff-after">
        <span className="diff-label">New {label}</span>
        <Block>{empty('after') ? <em className="muted">(none)</em> : <DiffSide diff={diff} which="after" />}</Block>
      </div>
    </div>
  )
}
