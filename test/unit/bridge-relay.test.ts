import { describe, expect, it } from 'vitest'
import { bodyReader, messagesOf } from '../../src/main/cli/bridge'

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

  it('an SSE stream read as it arrives: each message as soon as its frame is complete, wherever the chunks are cut', () => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }
    const result = { jsonrpc: '2.0', id: 7, result: {} }
    for (const eol of ['\n', '\r\n']) {
      const first = `event: message${eol}id: 1${eol}data: ${JSON.stringify(progress)}${eol}${eol}`
      const body = `${first}: keep-alive${eol}${eol}event: message${eol}data: ${JSON.stringify(result)}${eol}${eol}`
      for (let cut = 1; cut < body.length; cut++) {
        const seen: unknown[] = []
        const reader = bodyReader('text/event-stream', (m) => seen.push(m))
        reader.feed(body.slice(0, cut))
        // the progress notification is out once its frame is complete, before the stream ends
        expect(seen).toEqual(cut >= first.length ? [progress] : [])
        reader.feed(body.slice(cut))
        reader.end()
        expect(seen).toEqual([progress, result])
      }
    }
  })

  it('an SSE stream that ends without the last blank line still yields its last message', () => {
    expect(messagesOf('text/event-stream', 'data: {"jsonrpc":"2.0","id":1,"result":{}}')).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }])
  })
})
