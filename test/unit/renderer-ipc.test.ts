import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../src/shared/api'
import { IpcApi } from '../../src/renderer/api/ipc'
import type { ToolgateBridge } from '../../src/shared/ipc'

describe('IpcApi', () => {
  it('turns each Api call into one bridge invoke with the same arguments', async () => {
    const invoke = vi.fn(async (..._a: unknown[]) => ({ ok: true as const, value: 'v' }))
    const api = new IpcApi({ invoke, onEvent: vi.fn(() => () => {}) } as ToolgateBridge)
    await api.info()
    await api.tools('gh')
    await api.serverAction('gh', 'approve')
    await api.toolAction('gh', 'list', 'disable')
    await api.approveAll('gh')
    expect(await api.search({ query: 'q', include_disabled: true })).toBe('v')
    expect(invoke.mock.calls).toEqual([
      ['info'],
      ['tools', 'gh'],
      ['serverAction', 'gh', 'approve'],
      ['toolAction', 'gh', 'list', 'disable'],
      ['approveAll', 'gh'],
      ['search', { query: 'q', include_disabled: true }],
    ])
  })

  it('rethrows errors as ApiError with code and status', async () => {
    const bridge = {
      invoke: vi.fn(async () => ({ ok: false as const, error: { code: 'operator_hold', message: 'held by config', status: 409 } })),
      onEvent: vi.fn(),
    } as unknown as ToolgateBridge
    const err = await new IpcApi(bridge).serverAction('x', 'approve').catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err).toMatchObject({ code: 'operator_hold', message: 'held by config', status: 409 })
  })

  it('subscribe goes through the one event channel', () => {
    const off = vi.fn()
    const onEvent = vi.fn(() => off)
    const api = new IpcApi({ invoke: vi.fn(), onEvent } as unknown as ToolgateBridge)
    const l = vi.fn()
    const unsubscribe = api.subscribe(l)
    expect(onEvent).toHaveBeenCalledWith(l)
    unsubscribe()
    expect(off).toHaveBeenCalled()
  })
})
