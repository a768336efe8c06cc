// @vitest-environment happy-dom
// The window and the secret store: the file-only protection is a visible warning, shown as soon
// as the first secret lands (the secrets.changed event refreshes it), over the real control service.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, waitFor } from '@testing-library/react'
import { renderApp } from '../helpers/render-app'
import { emptyApi } from '../helpers/world-api'

afterEach(cleanup)

describe('secret store warning', () => {
  it('appears when the store holds secrets protected only by the key file', async () => {
    const api = emptyApi()
    renderApp(api)
    await waitFor(() => expect(document.querySelector('.app')).toBeTruthy())
    expect(document.querySelector('[data-banner="secrets-file"]')).toBeNull()
    await api.setSecret('GITHUB_TOKEN', 'ghp_value_never_shown_123456')
    await waitFor(() => expect(document.querySelector('[data-banner="secrets-file"]')).toBeTruthy())
    const text = document.querySelector('[data-banner="secrets-file"]')!.textContent!
    expect(text).toContain('secrets.key')
    expect(text).toContain('0600')
    expect(document.body.innerHTML).not.toContain('ghp_value_never_shown_123456')
  })
})
