// Who wants a server's resource changes (upstream/resource-subscriptions.ts): the server is told
// its wanted URIs once per turn, not once per URI (an agent's subscriptions/listen may name
// thousands: telling the whole set at each one was quadratic, ~29 s of the main thread for 20,000).
import { describe, expect, it } from 'vitest'
import { ResourceSubscriptions } from '../../src/main/core/upstream/resource-subscriptions'

const turn = (): Promise<void> => new Promise((r) => setImmediate(r))

describe('ResourceSubscriptions', () => {
  it('attack: 5,000 URIs added in one turn tell the server once, with all of them; released in one turn, once with none', async () => {
    const told: Array<{ server: string; uris: string[] }> = []
    const subs = new ResourceSubscriptions((server, uris) => told.push({ server, uris: [...uris] }))
    const releases = Array.from({ length: 5000 }, (_, i) => subs.add('s', `file:///r/${i}`, () => undefined))
    await turn()
    // before: 5,000 tellings, the last with 5,000 URIs
    expect(told.length).toBe(1)
    expect(told[0].uris.length).toBe(5000)
    for (const r of releases) r()
    await turn()
    expect(told.length).toBe(2)
    expect(told[1]).toEqual({ server: 's', uris: [] })
  })

  it('a URI wanted twice is told once and stays until its last listener leaves; changes reach each listener', async () => {
    const told: string[][] = []
    const subs = new ResourceSubscriptions((_server, uris) => told.push([...uris]))
    const heard: string[] = []
    const a = subs.add('s', 'file:///x', (u) => heard.push(`a ${u}`))
    const b = subs.add('s', 'file:///x', (u) => heard.push(`b ${u}`))
    await turn()
    expect(told).toEqual([['file:///x']])
    subs.deliver('s', 'file:///x')
    expect(heard).toEqual(['a file:///x', 'b file:///x'])
    a()
    await turn()
    expect(told.length).toBe(1)
    b()
    await turn()
    expect(told).toEqual([['file:///x'], []])
  })
})
