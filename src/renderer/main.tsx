// Renderer entry: pick the adapter (preload bridge in Electron, HTTP in the web UI) and render.
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { forgetApiKey } from './api/key'
import { selectApi } from './api/select'
import { App } from './components/App'
import { MissingKey } from './components/MissingKey'
import { StoreProvider } from './store/context'
import { createAppStore } from './store/store'
import './styles.css'

const root = createRoot(document.getElementById('root') as HTMLElement)
const choice = selectApi(window)

if (choice.kind === 'missing-key') {
  root.render(<MissingKey />)
  // pasting the printed URL into this tab only changes the hash: start over with the key
  window.addEventListener('hashchange', () => {
    if (/(^#|&)key=/.test(window.location.hash)) window.location.reload()
  })
} else {
  const store = createAppStore(choice.api)
  const forget =
    choice.kind === 'http'
      ? () => {
          forgetApiKey({ storage: window.sessionStorage })
          window.location.reload()
        }
      : undefined
  root.render(
    <StrictMode>
      <StoreProvider store={store}>
        <App onForgetKey={forget} desktop={choice.kind === 'ipc' ? window.toolgate?.settings : undefined} />
      </StoreProvider>
    </StrictMode>,
  )
}
