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

/** A key the user pasted: start over with it, as if the printed URL had been opened (readApiKey). */
function startWithKey(key: string): void {
  forgetApiKey({ storage: window.sessionStorage })
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#key=${encodeURIComponent(key)}`)
  window.location.reload()
}

if (choice.kind === 'missing-key') {
  root.render(<MissingKey onKey={startWithKey} />)
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
        <App
          onForgetKey={forget}
          onKey={choice.kind === 'http' ? startWithKey : undefined}
          desktop={choice.kind === 'ipc' ? window.toolgate?.settings : undefined}
        />
      </StoreProvider>
    </StrictMode>,
  )
}
