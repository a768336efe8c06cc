// Request bodies: JSON only, size-limited.
import type { IncomingMessage } from 'node:http'
import { ApiError } from '../../../shared/api'

export const MAX_BODY_BYTES = 1024 * 1024

export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limit) throw new ApiError('payload_too_large', `request body is larger than ${limit} bytes`, 413)
  const body = await readBody(req, limit)
  if (body === null) return undefined
  try {
    return JSON.parse(body.toString('utf8'))
  } catch (e) {
    throw new ApiError('invalid_json', `request body is not valid JSON: ${(e as Error).message}`, 400)
  }
}

/**
 * The body's bytes (null when empty), read with the stream's events: an async iterator per
 * request cost a few µs of every MCP call (docs/benchmarks.md). Past `limit` the request is
 * dropped (no more of it is read) and the answer is 413.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = (): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size <= limit) {
        chunks.push(chunk)
        return
      }
      stop()
      req.destroy()
      reject(new ApiError('payload_too_large', `request body is larger than ${limit} bytes`, 413))
    }
    const onEnd = (): void => {
      stop()
      resolve(size === 0 ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    }
    const onError = (e: Error): void => {
      stop()
      reject(e)
    }
    const onClose = (): void => {
      stop()
      reject(new Error('the client closed the connection before its request body arrived'))
    }
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose)
  })
}
