// A size limit per event on an HTTP upstream's event streams (the session's GET stream, the
// legacy SSE transport's stream). The SDK's SSE parsers (eventsource-parser, eventsource) keep an
// event's text until its blank line, with no limit: an upstream that sends one endless event made
// Toolgate hold every byte of it (3 GB sent: 3.2 GB resident; more: out of memory, every server
// and agent gone with it). This counts the bytes since the last event boundary (a blank line, with
// LF, CRLF or CR line ends) and fails the stream once one event is over the limit.

const LF = 10
const CR = 13

/** `body` with every event at most `maxBytes` long; a longer one errors the stream with `tooBig`. */
export function limitEventSize(body: ReadableStream<Uint8Array>, maxBytes: number, tooBig: (n: number) => Error): ReadableStream<Uint8Array> {
  /** bytes of the event being read (since the last blank line) */
  let event = 0
  /** bytes of the line being read (since the last line end) */
  let line = 0
  /** the last byte was a CR (a LF right after it ends the same line) */
  let afterCR = false
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i]
          if (b === LF || b === CR) {
            if (b === LF && afterCR) {
              afterCR = false
              continue
            }
            afterCR = b === CR
            if (line === 0) event = 0
            else event++
            line = 0
            continue
          }
          afterCR = false
          line++
          if (++event > maxBytes) {
            controller.error(tooBig(event))
            return
          }
        }
        controller.enqueue(chunk)
      },
    }),
  )
}
