// Request bodies: JSON only, size-limited.
import type { IncomingMessage } from 'node:http'
import { ApiError } from '../../../shared/api'

export const MAX_BODY_BYTES = 1024 * 1024

const tooLarge = (limit: number): ApiError => new ApiError('payload_too_large', `request body is larger than ${limit} bytes`, 413)

/**
 * A body of a declared length (at most the limit: Node's parser passes no byte past it), read
 * with 'data'/'end' listeners: a short body comes in the same read as the headers, and the async
 * iterator took ≈ 8 µs more of promise hops to hand it over (docs/performance.md, the call after
 * session 9).
 */
function readDeclared(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      chunks.push(chunk)
    }
    const onEnd = (): void => {
      done()
      if (size > limit) reject(tooLarge(limit))
      else resolve(size === 0 ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    }
    const onError = (e: Error): void => {
      done()
      reject(e)
    }
    // closed before its end without an error (the client went away): nothing to answer
    const onClose = (): void => {
      done()
      reject(new Error('the request was closed before its body ended'))
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}

/** A body of no declared length (chunked), counted as it streams; over the limit the request is let go (the answer still goes out). */
async function readStreamed(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk as Buffer)
  }
  return size === 0 ? null : Buffer.concat(chunks)
}

export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const length = req.headers['content-length']
  if (Number(length ?? 0) > limit) throw tooLarge(limit)
  const raw = length !== undefined && req.headers['transfer-encoding'] === undefined ? await readDeclared(req, limit) : await readStreamed(req, limit)
  if (raw === null) return undefined
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch (e) {
    throw new ApiError('invalid_json', `request body is not valid JSON: ${(e as Error).message}`, 400)
  }
}
