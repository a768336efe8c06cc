// Servers' questions waiting for the user's answer, above every view of the window beside the calls
// that wait (docs/passthrough.md#questions-asked-in-toolgate): a call waits on each. Empty, it shows nothing.
import { useApp } from '../store/context'
import { QuestionCard } from './QuestionCard'
import './confirmations.css'

export function QuestionsQueue() {
  const questions = useApp((s) => s.questions)
  if (questions.length === 0) return null
  return (
    <section className="confirmations questions" aria-label="Questions of servers waiting for your answer">
      <h2 className="confirmations-title">
        {questions.length === 1 ? "A server's question waits for your answer" : `${questions.length} servers' questions wait for your answer`}
      </h2>
      <ul className="confirmations-list">
        {questions.map((q) => (
          <QuestionCard key={q.id} q={q} />
        ))}
      </ul>
    </section>
  )
}
