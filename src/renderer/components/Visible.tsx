// Untrusted text as the window shows it: each hidden character (control, bidi or invisible: the
// one list in src/shared/text.ts) becomes a marked \u escape, so an upstream's text can neither
// hide part of itself from the reviewer nor reorder what is shown. Text nodes only.
import { Fragment } from 'react'
import { visibleParts } from '../../shared/text'

export function Visible({ text }: { text: string }) {
  const parts = visibleParts(text)
  if (parts.length === 1 && !parts[0].hidden) return <>{text}</>
  return (
    <>
      {parts.map((p, i) =>
        p.hidden ? (
          <code key={i} className="hidden-char" title="A hidden character: agents read it, a page would not show it">
            {p.text}
          </code>
        ) : (
          <Fragment key={i}>{p.text}</Fragment>
        ),
      )}
    </>
  )
}
