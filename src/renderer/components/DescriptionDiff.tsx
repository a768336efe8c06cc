// Previous and new description of a changed tool, with the changed words highlighted.
// Upstream text is untrusted: rendered as text nodes only.
import { useMemo } from 'react'
import { diffWords, side, type DiffPart } from '../lib/diff'

function Side({ parts }: { parts: DiffPart[] }) {
  return (
    <>{parts.map((p, i) => (p.op === 'del' ? <del key={i}>{p.text}</del> : p.op === 'add' ? <ins key={i}>{p.text}</ins> : <span key={i}>{p.text}</span>))}</>
  )
}

export function DescriptionDiff({ before, after }: { before: string; after: string }) {
  const parts = useMemo(() => diffWords(before, after), [before, after])
  const same = before === after
  return (
    <div className="diff">
      <div className="diff-side diff-before">
        <span className="diff-label">Previous description</span>
        <p>{before ? <Side parts={side(parts, 'before')} /> : <em className="muted">(empty)</em>}</p>
      </div>
      <div className="diff-side diff-after">
        <span className="diff-label">New description</span>
        <p>{after ? <Side parts={side(parts, 'after')} /> : <em className="muted">(empty)</em>}</p>
      </div>
      {same && <p className="muted small">The description is the same; the input schema changed.</p>}
    </div>
  )
}
