// @vitest-environment happy-dom
// A server's starts and stops in the Activity view say why in words: a new user walking the demo
// saw "started sequential-thinking · list" and "stopped memory · idle" and could not read "list".
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'

afterEach(cleanup)

describe('Activity: starts and stops', () => {
  it('the outcome cell gives the reason in words', async () => {
    const api = await worldApi()
    const local = { agent: null, client: null }
    api.activityLog.lifecycle(local, { kind: 'start', server: 'gh', reason: 'list', message: 'started gh to list its tools' })
    api.activityLog.lifecycle(local, { kind: 'stop', server: 'gh', reason: 'config', message: 'stopped gh' })
    api.activityLog.lifecycle(local, { kind: 'stop', server: 'gh', reason: 'idle', message: 'stopped gh' })
    renderApp(api)
    await waitFor(() => expect(document.querySelector('[data-server="gh"]')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Activity' }))
    const outcomes = (): string[] => [...document.querySelectorAll('[data-activity] .outcome')].map((o) => o.textContent ?? '')
    await waitFor(() => expect(outcomes()).toHaveLength(3))
    // newest first
    expect(outcomes()).toEqual(['unused (idle)', 'switched off or changed', 'to list its tools'])
  })
})
