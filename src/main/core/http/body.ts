// Request bodies: JSON only, size-limited.
import type { IncomingMessage } from 'node:http'
import { ApiError } from '../../../shared/api'

export const MAX_BODY_BYTES = 1024 * 1024

export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limit) throw new ApiError('payload_too_large', `request body is larger than ${limit} bytes`, 413)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) throw new ApiError('payload_too_large', `request body is larger than ${limit} bytes`, 413)
    chunks.push(chunk as Buffer)
  }
  if (size === 0) return undefined
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch (e) {
    throw new ApiError('invalid_json', `request body is not valid JSON: ${(e as Error).message}`, 400)
  }
}
