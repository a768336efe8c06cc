// @vitest-environment happy-dom
// The window and the secret store: what protects the first secret is said before it
// happens; once a key file protects the store, the Secrets view says so in plain words, once and
// dismissible, with the system's reason behind "Why", and no banner sits on every view. Over the
// real control service.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { emptyApi } from '../helpers/world-api'

afterEach(() => {
  cleanup()
  window.localStorage.clear()
})

const notice = () => document.querySelector('[data-notice="secrets-key-file"]')

describe('secret store protected by a key file', () => {
  it('is said in the Secrets view before and after the first secret, not as a banner on every view; Dismiss hides it for good', async () => {
    const api = emptyApi()
    renderApp(api)
    await waitFor(() => expect(document.querySelector('.app')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Secrets' }))
    // before: what will happen, in plain words
    await waitFor(() => expect(document.body.textContent).toContain('the first one will be protected by a key file in the data dir'))
    expect(notice()).toBeNull()
    await api.setSecret('GITHUB_TOKEN', 'ghp_value_never_shown_123456')
    await waitFor(() => expect(notice()).toBeTruthy())
    const text = notice()!.textContent!
    expect(text).toMatch(/^No keyring on this machine: secrets are encrypted with a key file in the data dir/)
    expect(text).toContain('secrets.key')
    // the reason as the system gave it, behind "Why"
    expect(within(notice() as HTMLElement).getByText('Why').tagName).toBe('SUMMARY')
    expect(document.body.innerHTML).not.toContain('ghp_value_never_shown_123456')
    // no banner on the other views
    fireEvent.click(screen.getByRole('button', { name: 'Servers' }))
    expect(document.querySelector('.banners')?.textContent ?? '').not.toMatch(/key file|keyring/)
    expect(document.querySelector('[data-banner="secrets-file"]')).toBeNull()
    // dismissed once, gone for good (a new window too)
    fireEvent.click(screen.getByRole('button', { name: 'Secrets' }))
    await waitFor(() => expect(notice()).toBeTruthy())
    fireEvent.click(within(notice() as HTMLElement).getByRole('button', { name: 'Dismiss' }))
    expect(notice()).toBeNull()
    cleanup()
    renderApp(api)
    await waitFor(() => expect(document.querySelector('.app')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Secrets' }))
    await waitFor(() => expect(document.querySelector('[data-secret="GITHUB_TOKEN"]')).toBeTruthy())
    expect(notice()).toBeNull()
  })
})
