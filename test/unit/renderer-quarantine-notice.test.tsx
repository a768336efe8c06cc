// @vitest-environment happy-dom
// The notice of a server waiting in quarantine says what the user can do next: before an Inspect,
// that Toolgate has not started it and Inspect lists its tools; once its tools are listed, that
// they are below to read, not "has not started it" (a new user who just ran Inspect saw that).
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, waitFor } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { worldApi } from '../helpers/world-api'

afterEach(cleanup)

const notice = (name: string): string => document.querySelector(`[data-server="${name}"] .notice--warn`)?.textContent ?? ''

describe('the quarantine notice', () => {
  it('before an Inspect: not started, Inspect lists its tools; after: its tools are listed below', async () => {
    const api = await worldApi()
    await api.service.addServer({ name: 'fresh', command: 'node', args: ['fresh.js'] })
    renderApp(api)
    await waitFor(() => expect(notice('fresh')).not.toBe(''))
    expect(notice('fresh')).toContain('Toolgate has not started it')
    expect(notice('fresh')).toContain('Inspect starts it once to list its tools')
    // sketchy was inspected (its tools are known) and never approved
    await waitFor(() => expect(notice('sketchy')).not.toBe(''))
    expect(notice('sketchy')).toContain('Its tools are listed below')
    expect(notice('sketchy')).not.toContain('has not started it')
    expect(notice('sketchy')).toContain('Approve server lets agents use it')
  })
})
