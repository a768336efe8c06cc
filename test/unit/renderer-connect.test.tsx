// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { ConnectSnippets } from '../../src/renderer/components/ConnectSnippets'
import { connectSnippets } from '../../src/main/core/control/connect-snippets'

afterEach(cleanup)

describe('connecting an agent from the window', () => {
  const snippets = connectSnippets('/home/me/.toolgate-test')

  it('shows the exact snippet `toolgate connect` prints, per client, with where it goes', () => {
    render(<ConnectSnippets snippets={snippets} />)
    const claude = snippets.find((s) => s.client === 'claude-desktop')!
    expect(JSON.parse(claude.snippet).mcpServers.toolgate.args).toEqual(expect.arrayContaining(['stdio', '--data-dir', '/home/me/.toolgate-test']))
    expect(document.querySelector('pre.code')?.textContent).toBe(claude.snippet)
    expect(screen.getByText(claude.config_path)).toBeTruthy()
    fireEvent.click(screen.getByRole('tab', { name: 'Cursor' }))
    expect(document.querySelector('pre.code')?.textContent).toBe(snippets.find((s) => s.client === 'cursor')!.snippet)
  })

  it('copies the snippet with one click', async () => {
    const writeText = vi.fn(async () => {})
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    render(<ConnectSnippets snippets={snippets} />)
    fireEvent.click(screen.getByRole('button', { name: 'Copy snippet' }))
    await waitFor(() => expect(screen.getByRole('button', { name: 'Copied' })).toBeTruthy())
    expect(writeText).toHaveBeenCalledWith(snippets[0].snippet)
  })
})
