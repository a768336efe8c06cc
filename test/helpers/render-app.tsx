// Renders the whole renderer app around an Api (the real control service of world-api.ts), the way main.tsx does.
import { render } from '@testing-library/react'
import type { Api } from '../../src/shared/api'
import { App } from '../../src/renderer/components/App'
import { StoreProvider } from '../../src/renderer/store/context'
import { createAppStore } from '../../src/renderer/store/store'

export function renderApp<A extends Api>(api: A) {
  const store = createAppStore(api, { refreshDelayMs: 5 })
  const view = render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
  return { api, store, ...view }
}
