import { describe, expect, it } from 'vitest'
import { messagesOf } from '../../src/main/cli/bridge'

describe('the stdio bridge reads whatever framing the owner answers with', () => {
  it('a plain JSON answer, one message or a batch', () => {
    expect(messagesOf('application/json', '{"jsonrpc":"2.0","id":1,"result":{}}')).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
    expect(messagesOf('application/json; charset=utf-8', '[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]')).toHaveLength(2)
  })

  it('an SSE stream: each data event is one message, multi-line data joined', () => {
    const body =
      'event: message\nid: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\nevent: message\ndata: {"jsonrpc":"2.0",\ndata: "id":7,"result":{}}\n\n'
    expect(messagesOf('text/event-stream', body)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
      { jsonrpc: '2.0', id: 7, result: {} },
    ])
  })

  it('an empty body (202 for notifications) carries nothing', () => {
    expect(messagesOf('', '')).toEqual([])
    expect(messagesOf('text/event-stream', '\n')).toEqual([])
  })
})
