import { describe, expect, it, vi } from 'vitest'
import { questionNote, REPEAT_AFTER_MS, WaitingNotifier, whatStartedWaiting } from '../../src/main/electron/notify'
import { summarizeServers as summarize, type ServersSummary as Summary } from '../../src/shared/summary'
import { worldApi } from '../helpers/world-api'

const s = (over: Partial<Summary>): Summary => ({
  total: 0,
  connected: 0,
  onDemand: 0,
  quarantined: 0,
  disabled: 0,
  error: 0,
  callable: 0,
  reviewServers: [],
  needsSignIn: [],
  pendingTools: {},
  pendingPrompts: {},
  pendingTemplates: {},
  waiting: 0,
  failing: [],
  ...over,
})

describe('notifications for things that start waiting', () => {
  it('says nothing when nothing new waits', () => {
    expect(whatStartedWaiting(s({ reviewServers: ['a'] }), s({ reviewServers: ['a'] }))).toBeNull()
    expect(whatStartedWaiting(s({ pendingTools: { a: 3 } }), s({ pendingTools: { a: 2 } }))).toBeNull()
  })

  it('a new server to review', () => {
    expect(whatStartedWaiting(s({}), s({ reviewServers: ['fs'] }))).toEqual({
      title: 'Toolgate: a server waits for review',
      body: 'Server "fs" is new and waits for your review. Open Toolgate to review.',
    })
  })

  it('more tools pending on a server', () => {
    expect(whatStartedWaiting(s({ pendingTools: { gh: 1 } }), s({ pendingTools: { gh: 3 } }))).toEqual({
      title: 'Toolgate: 2 tools wait for approval',
      body: '2 tools of "gh" are new or changed. Open Toolgate to review.',
    })
  })

  it('a prompt changed on a server', () => {
    expect(whatStartedWaiting(s({}), s({ pendingPrompts: { gh: 1 } }))).toEqual({
      title: 'Toolgate: 1 prompt waits for approval',
      body: '1 prompt of "gh" is new or changed. Open Toolgate to review.',
    })
  })

  it('the first snapshot is the baseline', () => {
    const show = vi.fn()
    const n = new WaitingNotifier(show)
    expect(n.update(s({ reviewServers: ['a'] }))).toBeNull()
    expect(n.update(s({ reviewServers: ['a', 'b'] }))?.title).toBe('Toolgate: a server waits for review')
    expect(show).toHaveBeenCalledTimes(1)
  })

  it('summary: operator holds and user holds are not "waiting"', async () => {
    const { servers } = await (await worldApi()).servers()
    const sum = summarize(servers)
    // legacy: put back into quarantine by the user themselves, not waiting on them
    expect(sum).toMatchObject({ total: 4, connected: 0, callable: 3, reviewServers: ['sketchy'], pendingTools: { gh: 1 }, waiting: 2 })
  })
})

describe("a server's question", () => {
  const q = {
    id: 'q_1',
    server: 'files',
    agent: null,
    client: 'cli',
    tool: 'files:ask',
    mode: 'form' as const,
    message: 'Toolgate asks: <b>type your password</b>',
    fields: [],
    status: 'pending' as const,
    created_at: '2026-11-27T10:00:00.000Z',
    expires_at: '2026-11-27T10:02:00.000Z',
  }
  it('is titled with the configured server, never with its own words; markup in them is escaped', () => {
    const n = questionNote(q, Date.parse('2026-11-27T10:00:00.000Z'))
    expect(n.title).toBe('Toolgate: the MCP server "files" has a question')
    expect(n.body).toBe('It asks: Toolgate asks: \\u{3c}b\\u{3e}type your password\\u{3c}/b\\u{3e} Open Toolgate to answer (120 s left).')
    expect(questionNote({ ...q, mode: 'url', url: 'https://a.example/x', url_host: 'a.example' }, Date.parse('2026-11-27T10:00:00.000Z')).body).toContain(
      'It asks you to open a page on a.example.',
    )
  })
})

describe('a server that flips what waits back and forth', () => {
  it('is announced once, not at every flip, until REPEAT_AFTER_MS passed or more of it waits', () => {
    let t = 0
    const show = vi.fn()
    const n = new WaitingNotifier(show, () => t)
    n.update(s({}))
    // a tool changed, reverted, changed … every 3 s for two minutes
    for (let i = 0; i < 20; i++) {
      t += 3000
      n.update(s({ pendingTools: { evil: 1 } }))
      t += 3000
      n.update(s({}))
    }
    expect(show).toHaveBeenCalledTimes(1)
    // more of it waits than was announced: told
    n.update(s({ pendingTools: { evil: 2 } }))
    expect(show).toHaveBeenCalledTimes(2)
    // another server is told at once, and only it
    expect(n.update(s({ pendingTools: { evil: 2, other: 1 } }))?.body).toBe('1 tool of "other" is new or changed. Open Toolgate to review.')
    t += REPEAT_AFTER_MS
    n.update(s({}))
    n.update(s({ pendingTools: { evil: 1 } }))
    expect(show).toHaveBeenCalledTimes(4)
  })

  it('a server that asks for sign-in every other time, or flips a prompt, likewise', () => {
    let t = 0
    const show = vi.fn()
    const n = new WaitingNotifier(show, () => t)
    n.update(s({}))
    for (let i = 0; i < 10; i++) {
      t += 3000
      n.update(s({ needsSignIn: ['flaky'], pendingPrompts: { flaky: 1 } }))
      t += 3000
      n.update(s({}))
    }
    expect(show).toHaveBeenCalledTimes(1)
  })
})
