// Attack (found by an attacker on this round's template review): Remove server took a server's
// tool approvals with it but left its prompt and resource-template approvals in state.json, so a
// later, different server under the same name inherited them and its templates and prompts reached
// agents with no review. Now Remove takes every decision on what the server offered, and Undo
// (restore) brings all of them back. Real serve, a raw upstream listing a template and a prompt.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { apiRequest, type Serve } from '../helpers/cli'
import { serveHostile } from '../helpers/hostile-serve'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp } from '../helpers/mcp-client'

const NOTE = { uriTemplate: 'file:///notes/{id}.md', name: 'note', description: 'A note by its id.' }
const GREET = { name: 'greet', description: 'Says hello.' }
const Loose = z.object({}).loose()

useCleanup()

describe('Remove server takes its prompt and template approvals with it', () => {
  let serve: Serve
  let dataDir: string
  const state = () =>
    JSON.parse(fs.readFileSync(path.join(dataDir, 'state.json'), 'utf8')) as {
      prompts?: Record<string, unknown>
      resource_templates?: Record<string, unknown>
    }

  beforeAll(async () => {
    let token: string
    ;({ serve, token, dataDir } = await serveHostile('toolgate-remove-records-', { templates: [NOTE], prompts: [GREET] }))
    const s = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${token}` })
    await s.client.request({ method: 'resources/templates/list', params: {} }, Loose)
    await s.client.request({ method: 'prompts/list', params: {} }, Loose)
    await s.close()
  }, 60_000)

  afterAll(async () => {
    await stopServe(serve)
  })

  it('after Remove, state.json holds no approval of its prompts or templates; Undo brings them back', async () => {
    const before = state()
    expect(Object.keys(before.resource_templates ?? {})).toContain(`ht:${NOTE.uriTemplate}`)
    expect(Object.keys(before.prompts ?? {})).toContain(`ht:${GREET.name}`)

    expect((await apiRequest(serve, 'DELETE', '/api/v1/servers/ht')).status).toBe(200)
    const removed = state()
    expect(Object.keys(removed.resource_templates ?? {}), 'template approvals left behind').not.toContain(`ht:${NOTE.uriTemplate}`)
    expect(Object.keys(removed.prompts ?? {}), 'prompt approvals left behind').not.toContain(`ht:${GREET.name}`)

    expect((await apiRequest(serve, 'POST', '/api/v1/servers/ht/restore')).status).toBe(200)
    const restored = state()
    expect(restored.resource_templates?.[`ht:${NOTE.uriTemplate}`]).toEqual(before.resource_templates?.[`ht:${NOTE.uriTemplate}`])
    expect(restored.prompts?.[`ht:${GREET.name}`]).toEqual(before.prompts?.[`ht:${GREET.name}`])
  })
})
