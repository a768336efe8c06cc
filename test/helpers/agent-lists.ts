// What agents of both eras list (resource templates, prompts), for tests of the template and prompt review.
import { z } from 'zod'
import type { Serve } from './cli'
import { connectHttp } from './mcp-client'
import { answerOf, MODERN_BARE, modernPost } from './modern-http'

const Loose = z.object({}).loose()

/** One list agents of both eras read: [2025 session, 2026-07-28 request], each the `field` of every item under `key`. */
async function listedBothEras(
  serve: Serve,
  token: string,
  method: 'resources/templates/list' | 'prompts/list',
  key: string,
  field: string,
): Promise<string[][]> {
  const session = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${token}` })
  try {
    const a = (await session.client.request({ method, params: {} }, Loose))[key] as Array<Record<string, string>>
    const b = answerOf<{ result: Record<string, Array<Record<string, string>>> }>(
      (await modernPost(serve, token, method, {}, { envelope: MODERN_BARE, endpoint: '/mcp' })).body,
    ).result[key] as Array<Record<string, string>>
    return [a.map((t) => t[field] as string), b.map((t) => t[field] as string)]
  } finally {
    await session.close()
  }
}

/** The URI templates agents of both eras list: [2025 session, 2026-07-28 request]. */
export function listedTemplates(serve: Serve, token: string): Promise<string[][]> {
  return listedBothEras(serve, token, 'resources/templates/list', 'resourceTemplates', 'uriTemplate')
}

/** The prompt names agents of both eras list: [2025 session, 2026-07-28 request]. */
export function listedPrompts(serve: Serve, token: string): Promise<string[][]> {
  return listedBothEras(serve, token, 'prompts/list', 'prompts', 'name')
}
