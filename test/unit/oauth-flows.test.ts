// Pending sign-ins (src/main/core/oauth/flows.ts): a state is random, bound to one server, used
// once, and dead after its time.
import { describe, expect, it } from 'vitest'
import { PendingFlows } from '../../src/main/core/oauth/flows'

function clock(start = 1_000_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => void (t += ms) }
}

describe('pending sign-ins', () => {
  it('gives every sign-in its own unguessable state (256 bits, base64url)', () => {
    const flows = new PendingFlows(Date.now)
    const states = new Set(Array.from({ length: 50 }, (_, i) => flows.create(`s${i}`, 'https://x/mcp', 'http://127.0.0.1:1/oauth/callback').state))
    expect(states.size).toBe(50)
    for (const s of states) expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('hands a state out once: a replayed redirect finds nothing', () => {
    const flows = new PendingFlows(Date.now)
    const f = flows.create('a', 'https://x/mcp', 'http://127.0.0.1:1/oauth/callback')
    expect(flows.take(f.state)).toEqual({ flow: f })
    expect(flows.take(f.state)).toEqual({ error: expect.stringMatching(/unknown, already used or expired/) })
  })

  it('refuses a missing, malformed or made-up state', () => {
    const flows = new PendingFlows(Date.now)
    flows.create('a', 'https://x/mcp', 'http://127.0.0.1:1/oauth/callback')
    expect(flows.take(null)).toHaveProperty('error')
    expect(flows.take('')).toHaveProperty('error')
    expect(flows.take('short')).toHaveProperty('error')
    expect(flows.take('x'.repeat(43))).toHaveProperty('error')
    expect(flows.take("' OR 1=1 --")).toHaveProperty('error')
  })

  it('lets a state expire: after its time it is refused and the sign-in ends', async () => {
    const c = clock()
    const flows = new PendingFlows(c.now, 60_000)
    const f = flows.create('a', 'https://x/mcp', 'http://127.0.0.1:1/oauth/callback')
    c.advance(59_999)
    expect(flows.of('a')).toBe(f)
    c.advance(2)
    expect(flows.take(f.state)).toHaveProperty('error')
    expect(flows.of('a')).toBeNull()
    await expect(f.done).resolves.toEqual({ ok: false, message: 'the sign-in was not completed in time' })
  })

  it('attack: an authorization server that never answers the code exchange does not keep the sign-in under way forever', async () => {
    const c = clock()
    const flows = new PendingFlows(c.now, 60_000, 30_000)
    const f = flows.create('a', 'https://x/mcp', 'http://127.0.0.1:1/oauth/callback')
    c.advance(50_000)
    expect(flows.take(f.state)).toEqual({ flow: f })
    // the exchange may outlive the wait for the redirect, for its own time
    c.advance(29_999)
    expect(flows.of('a')).toBe(f)
    c.advance(2)
    // before: signing in for as long as the token endpoint held the request (auth login waited past the time it printed)
    expect(flows.of('a')).toBeNull()
    await expect(f.done).resolves.toEqual({ ok: false, message: 'the authorization server did not answer the code exchange within 30 s' })
    expect(f.endedBecause).toMatch(/did not answer the code exchange/)
  })

  it('a new sign-in of the same server ends the one before (its state stops working); other servers keep theirs', async () => {
    const flows = new PendingFlows(Date.now)
    const first = flows.create('a', 'https://x/mcp', 'http://127.0.0.1:1/oauth/callback')
    const other = flows.create('b', 'https://y/mcp', 'http://127.0.0.1:1/oauth/callback')
    const second = flows.create('a', 'https://x/mcp', 'http://127.0.0.1:1/oauth/callback')
    await expect(first.done).resolves.toMatchObject({ ok: false })
    expect(flows.take(first.state)).toHaveProperty('error')
    expect(flows.of('a')).toBe(second)
    expect(flows.take(other.state)).toEqual({ flow: other })
  })
})
