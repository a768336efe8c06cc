// What access requests, confirmations and servers' questions put on the activity record by
// themselves, not through a person in the window: an answer given at the agent's own client, a
// server's question nobody answered in time, a grant that expired.
import type { ActivityRecorder } from '../activity/recorder'
import { questionRecordOf } from '../control/answers'
import type { setupRequests } from '../requests'

type Records = Pick<Parameters<typeof setupRequests>[0], 'onClientAnswer' | 'onQuestion' | 'onEnd'>

export function requestRecords(activity: ActivityRecorder): Records {
  return {
    // an answer given at the agent's own client (ask_in_client) is on the record like the window's
    onClientAnswer: (req, action, message) =>
      activity.decision({ by: 'user', via: 'client' }, { agent: req.agent, client: req.client }, { action, server: req.server, tool: req.tool, message }),
    // a server's question nobody answered in time: the server got "cancel" (an answer is recorded where it is given)
    onQuestion: (q) => {
      if (q.status !== 'timeout') return
      activity.decision(
        { by: 'toolgate', via: 'timer' },
        { agent: q.agent, client: q.client },
        {
          action: 'cancel',
          server: q.server,
          tool: q.tool.slice(q.server.length + 1),
          message: `Nobody answered the question of server "${q.server}" in time; the server got "cancel".`,
          question: questionRecordOf(q),
        },
      )
    },
    // the end of a grant is on the record (a used "Allow once" pass is: it is the call)
    onEnd: (end, why) => {
      if (why !== 'expired') return
      const g = end.grant
      activity.decision(
        { by: 'toolgate', via: 'timer' },
        { agent: g.agent ?? null, client: null },
        { action: 'expire', server: g.server, ...(g.tool ? { tool: g.tool } : {}), message: end.message },
      )
    },
  }
}
