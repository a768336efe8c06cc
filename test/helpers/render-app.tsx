// Renders the whole renderer app around a FakeApi, the way main.tsx does.
import { render } from '@testing-library/react'
import { App } from '../../src/renderer/components/App'
import { StoreProvider } from '../../src/renderer/store/context'
import { createAppStore } from '../../src/renderer/store/store'
import { FakeApi, sampleServers, type FakeServer } from './fake-api'

export function renderApp(servers: FakeServer[] = sampleServers(), api = new FakeApi(servers)) {
  const store = createAppStore(api, { refreshDelayMs: 5 })
  const view = render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
  return { api, store, ...view }
}
