// What needs the user, in the top bar: calls waiting for the user's OK first (with
// a jump to the card), servers that fail and what waits for approval
// (servers to review, new or changed tools), each a button that opens the first such server, and
// agents' access requests (a button to the Requests view), and remote servers that need sign-in.
// The numbers are the one shared summary's (src/shared/summary.ts), as in the tray and /status.
import type { ServersSummary } from '../../shared/summary'
import { useApp } from '../store/context'

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/**
 * Brings the first call waiting for the user's OK into view below the sticky top bar (at 420 px
 * the bar is tall and the queue may sit under banners), and moves the focus to its card, never
 * to Allow (an Enter must not answer it).
 */
function jumpToCalls(selector = '[data-confirmation]'): void {
  const card = document.querySelector<HTMLElement>(selector)
  if (!card) return
  const bar = document.querySelector<HTMLElement>('.topbar')
  const below = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().height : 0
  window.scrollTo({ top: card.getBoundingClientRect().top + window.scrollY - below - 8 })
  card.focus({ preventScroll: true })
}

/** `asking`: agents' access requests waiting for an answer; `calls`: agents' calls waiting for the user's OK; `questions`: servers' questions waiting for the user's answer */
export function Attention({ summary, asking, calls = 0, questions = 0 }: { summary: ServersSummary; asking: number; calls?: number; questions?: number }) {
  const setTab = useApp((s) => s.setTab)
  const setExpanded = useApp((s) => s.setExpanded)
  const goTo = (name: string | undefined) => {
    setTab('servers')
    if (!name) return
    setExpanded(name, true)
    // after the servers view rendered: bring the card into view
    setTimeout(() => {
      const card = [...document.querySelectorAll<HTMLElement>('[data-server]')].find((e) => e.getAttribute('data-server') === name)
      card?.scrollIntoView?.({ block: 'start', behavior: 'smooth' })
    }, 0)
  }
  const { failing, waiting, reviewServers, pendingTools, pendingPrompts, pendingTemplates, needsSignIn } = summary
  const tools = Object.values(pendingTools).reduce((a, b) => a + b, 0)
  const prompts = Object.values(pendingPrompts).reduce((a, b) => a + b, 0)
  const templates = Object.values(pendingTemplates).reduce((a, b) => a + b, 0)
  if (calls === 0 && questions === 0 && failing.length === 0 && waiting === 0 && asking === 0 && needsSignIn.length === 0) {
    return (
      <span className="attention attention--calm" data-attention="none">
        Nothing needs your attention
      </span>
    )
  }
  const detail = [
    reviewServers.length ? plural(reviewServers.length, 'server to review', 'servers to review') : '',
    tools ? plural(tools, 'tool', 'tools') : '',
    prompts ? plural(prompts, 'prompt', 'prompts') : '',
    templates ? plural(templates, 'resource template', 'resource templates') : '',
  ]
    .filter(Boolean)
    .join(', ')
  return (
    <span className="attention">
      <span className="attention-label">Needs your attention:</span>
      {calls > 0 && (
        // first: an agent is waiting for this answer right now
        <button type="button" className="waiting attention-item attention-item--danger" data-attention="calls" onClick={() => jumpToCalls()}>
          {calls === 1 ? '1 call waits for your OK' : `${calls} calls wait for your OK`}
        </button>
      )}
      {questions > 0 && (
        // a call waits on each: as urgent as a call
        <button
          type="button"
          className="waiting attention-item attention-item--danger"
          data-attention="questions"
          onClick={() => jumpToCalls('[data-question]')}
        >
          {questions === 1 ? "1 server's question waits for your answer" : `${questions} servers' questions wait for your answer`}
        </button>
      )}
      {failing.length > 0 && (
        <button type="button" className="waiting attention-item attention-item--danger" data-attention="failing" onClick={() => goTo(failing[0])}>
          {plural(failing.length, 'server failing', 'servers failing')}
        </button>
      )}
      {waiting > 0 && (
        <>
          <button
            type="button"
            className="waiting attention-item"
            data-attention="waiting"
            onClick={() => goTo(reviewServers[0] ?? Object.keys(pendingTools)[0] ?? Object.keys(pendingPrompts)[0] ?? Object.keys(pendingTemplates)[0])}
          >
            {waiting} waiting for approval
          </button>
          <span className="attention-detail">({detail})</span>
        </>
      )}
      {needsSignIn.length > 0 && (
        <button type="button" className="waiting attention-item" data-attention="sign-in" onClick={() => goTo(needsSignIn[0])}>
          {plural(needsSignIn.length, 'server needs sign-in', 'servers need sign-in')}
        </button>
      )}
      {asking > 0 && (
        <button type="button" className="waiting attention-item" data-attention="requests" onClick={() => setTab('requests')}>
          {plural(asking, 'access request', 'access requests')}
        </button>
      )}
    </span>
  )
}
