// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { ApiError, type ApiEvent } from '../../src/shared/api'
import { ControlClient } from '../../src/shared/control-client'
import { KEY_STORAGE, readApiKey } from '../../src/renderer/api/key'
import { frameToEvent, parseSseChunk } from '../../src/shared/sse'
import { selectApi } from '../../src/renderer/api/select'

type Req = { url: string; method: string; headers: Record<string, string> }

function fakeFetch(answer: (req: Req) => Response | Promise<Response>) {
  const requests: Req[] = []
  const fn = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    const req = { url: String(url), method: init?.method ?? 'GET', headers: (init?.headers ?? {}) as Record<string, string> }
    requests.push(req)
    return answer(req)
  })
  return { fetch: fn as unknown as typeof fetch, requests }
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })

describe('ControlClient', () => {
  it('maps every operation onto its control API route with the bearer key', async () => {
    const { fetch, requests } = fakeFetch(() => json({ ok: true, message: 'm', servers: [], tools: [] }))
    const api = new ControlClient({ key: 'k'.repeat(32), fetch })
    await api.info()
    await api.status()
    await api.servers()
    await api.tools('my server')
    await api.serverAction('gh', 'approve')
    await api.serverAction('gh', 'inspect')
    await api.toolAction('gh', 'weird/tool:name', 'disable')
    await api.approveAll('gh')
    await api.stats()
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/v1/info',
      'GET /api/v1/status',
      'GET /api/v1/servers',
      'GET /api/v1/servers/my%20server/tools',
      'POST /api/v1/servers/gh/approve',
      'POST /api/v1/servers/gh/inspect',
      'POST /api/v1/servers/gh/tools/weird%2Ftool%3Aname/disable',
      'POST /api/v1/servers/gh/tools/approve-all',
      'GET /api/v1/stats',
    ])
    for (const r of requests) expect(r.headers.Authorization).toBe(`Bearer ${'k'.repeat(32)}`)
  })

  it('search returns the raw text untouched and passes include_disabled explicitly', async () => {
    const raw = '{"query":"x",  "tools":[],"total":0}'
    const { fetch, requests } = fakeFetch(() => new Response(raw))
    const api = new ControlClient({ key: 'k', fetch })
    expect(await api.search({ query: 'read file', limit: 5, include_disabled: true })).toBe(raw)
    await api.search({ query: 'x', include_disabled: false })
    await api.search({ query: 'x' })
    expect(requests.map((r) => r.url)).toEqual([
      '/api/v1/search?q=read+file&limit=5&include_disabled=true',
      '/api/v1/search?q=x&include_disabled=false',
      '/api/v1/search?q=x',
    ])
  })

  it('turns {"error":{code,message}} into ApiError with the HTTP status', async () => {
    const { fetch } = fakeFetch(() => json({ error: { code: 'config_lock', message: 'denied by disabled_tools' } }, 409))
    const api = new ControlClient({ key: 'k', fetch })
    const err = await api.toolAction('gh', 'delete_repo', 'enable').catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err).toMatchObject({ code: 'config_lock', message: 'denied by disabled_tools', status: 409 })
  })

  it('a non-JSON error and a network failure still become ApiErrors', async () => {
    const api401 = new ControlClient({ key: 'k', fetch: fakeFetch(() => new Response('', { status: 401 })).fetch })
    expect(await api401.status().catch((e) => e)).toMatchObject({ code: 'unauthorized', status: 401 })
    const down = new ControlClient({
      key: 'k',
      baseUrl: 'http://127.0.0.1:9',
      unreachableHint: 'Is `toolgate serve` still running?',
      fetch: (async () => {
        throw new TypeError('Failed to fetch')
      }) as unknown as typeof fetch,
    })
    const err = await down.servers().catch((e) => e)
    expect(err).toMatchObject({ code: 'unreachable', status: 0 })
    expect(err.message).toBe('Cannot reach Toolgate at http://127.0.0.1:9 (Failed to fetch). Is `toolgate serve` still running?')
  })

  it('reads SSE events with the Authorization header and reconnects after the stream ends', async () => {
    let n = 0
    const { fetch, requests } = fakeFetch((req) => {
      if (!req.url.endsWith('/api/v1/events')) return json({})
      n++
      const chunks =
        n === 1
          ? [': hello\n\n', 'event: servers.changed\ndata: {"servers":', '["gh"]}\n\n', 'event: unknown.kind\ndata: {}\n\n']
          : ['event: tools.changed\r\ndata: {"servers":["gh"]}\r\n\r\n']
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch))
          if (n === 1) c.close() // the server restarts: the stream ends
        },
      })
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } })
    })
    vi.useFakeTimers({ shouldAdvanceTime: true })
    try {
      const api = new ControlClient({ key: 'sekrit', fetch })
      const seen: ApiEvent[] = []
      const stop = api.subscribe((e) => seen.push(e))
      await vi.waitFor(() => expect(seen.length).toBe(1))
      expect(seen[0]).toEqual({ type: 'servers.changed', data: { servers: ['gh'] } })
      await vi.advanceTimersByTimeAsync(1100)
      await vi.waitFor(() => expect(seen.map((e) => e.type)).toEqual(['servers.changed', 'config.reloaded', 'tools.changed']))
      expect(seen[1].data).toEqual({ reconnected: true })
      expect(requests.filter((r) => r.url.endsWith('/events')).every((r) => r.headers.Authorization === 'Bearer sekrit')).toBe(true)
      stop()
    } finally {
      vi.useRealTimers()
    }
  })

  it('frameToEvent reads each event by its type; one whose payload does not read asks for everything again', () => {
    expect(frameToEvent({ event: 'tools.changed', data: '{"servers":["gh","files"]}' })).toEqual({ type: 'tools.changed', data: { servers: ['gh', 'files'] } })
    expect(frameToEvent({ event: 'requests.changed', data: '{"id":"r1","status":"granted"}' })).toEqual({
      type: 'requests.changed',
      data: { id: 'r1', status: 'granted' },
    })
    const everything = { type: 'config.reloaded', data: { reconnected: true } }
    expect(frameToEvent({ event: 'servers.changed', data: '{"server":"gh"}' })).toEqual(everything)
    expect(frameToEvent({ event: 'requests.changed', data: '{"id":"r1","status":"maybe"}' })).toEqual(everything)
    expect(frameToEvent({ event: 'servers.changed', data: '{"servers":' })).toEqual(everything)
    expect(frameToEvent({ event: 'unknown.kind', data: '{}' })).toBeNull()
  })

  it('parseSseChunk keeps an incomplete frame for the next chunk', () => {
    const { frames, rest } = parseSseChunk('event: a\ndata: 1\n\nevent: b\ndata: {"x"')
    expect(frames).toEqual([{ event: 'a', data: '1' }])
    expect(rest).toBe('event: b\ndata: {"x"')
    expect(parseSseChunk('data: a\ndata: b\n\n').frames).toEqual([{ event: 'message', data: 'a\nb' }])
  })

  it('parseSseChunk waits for the other half of a \\r\\n cut between two chunks', () => {
    const first = parseSseChunk('data: 1\r\n\r')
    expect(first.frames).toEqual([])
    const second = parseSseChunk(`${first.rest}\ndata: 2\r\n\r\n`)
    expect(second.frames).toEqual([
      { event: 'message', data: '1' },
      { event: 'message', data: '2' },
    ])
    expect(second.rest).toBe('')
  })
})

describe('the web UI key', () => {
  function env(hash: string) {
    const store = new Map<string, string>()
    const replaceState = vi.fn()
    return {
      replaceState,
      store,
      env: {
        location: { hash, pathname: '/', search: '' },
        history: { replaceState },
        storage: {
          getItem: (k: string) => store.get(k) ?? null,
          setItem: (k: string, v: string) => void store.set(k, v),
          removeItem: (k: string) => void store.delete(k),
        },
      },
    }
  }

  it('takes #key=, keeps it in sessionStorage and clears it from the address bar', () => {
    const e = env('#key=abc123')
    expect(readApiKey(e.env)).toBe('abc123')
    expect(e.store.get(KEY_STORAGE)).toBe('abc123')
    expect(e.replaceState).toHaveBeenCalledWith(null, '', '/')
  })

  it('falls back to sessionStorage, or null when there is no key', () => {
    const e = env('')
    expect(readApiKey(e.env)).toBeNull()
    e.store.set(KEY_STORAGE, 'stored')
    expect(readApiKey(e.env)).toBe('stored')
    expect(e.replaceState).not.toHaveBeenCalled()
  })

  it('selectApi: the bridge wins, then the key, else the missing-key screen', () => {
    sessionStorage.clear()
    expect(selectApi(window).kind).toBe('missing-key')
    window.location.hash = '#key=' + 'z'.repeat(32)
    expect(selectApi(window).kind).toBe('http')
    expect(window.location.hash).toBe('')
    ;(window as Window).toolgate = { invoke: vi.fn(), onEvent: vi.fn() }
    expect(selectApi(window).kind).toBe('ipc')
    delete (window as Window).toolgate
  })
})
