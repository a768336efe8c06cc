// The URI templates agents of both eras list, for tests of the template review.
import { z } from 'zod'
import type { Serve } from './cli'
import { connectHttp } from './mcp-client'
import { answerOf, MODERN_BARE, modernPost } from './modern-http'

const Loose = z.object({}).loose()

/** The URI templates agents of both eras list: [2025 session, 2026-07-28 request]. */
export async function listedTemplates(serve: Serve, token: string): Promise<string[][]> {
  const session = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${token}` })
  try {
    const a = (await session.client.request({ method: 'resources/templates/list', params: {} }, Loose)).resourceTemplates as Array<{ uriTemplate: string }>
    const b = answerOf<{ result: { resourceTemplates: Array<{ uriTemplate: string }> } }>(
      (await modernPost(serve, token, 'resources/templates/list', {}, { envelope: MODERN_BARE, endpoint: '/mcp' })).body,
    ).result.resourceTemplates
    return [a.map((t) => t.uriTemplate), b.map((t) => t.uriTemplate)]
  } finally {
    await session.close()
  }
}
