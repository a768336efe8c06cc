// Brings a tool row into view once it is rendered (after switching to the Servers view and
// opening its server), and moves the keyboard focus there.
export function revealTool(id: string, timeoutMs = 3000): void {
  const deadline = Date.now() + timeoutMs
  const tick = (): void => {
    const row = document.querySelector<HTMLElement>(`[data-tool="${CSS.escape(id)}"]`)
    if (row) {
      row.scrollIntoView?.({ block: 'center' })
      row.classList.add('tool--revealed')
      if (!row.hasAttribute('tabindex')) row.setAttribute('tabindex', '-1')
      row.focus({ preventScroll: true })
      return
    }
    if (Date.now() < deadline) setTimeout(tick, 50)
  }
  tick()
}
