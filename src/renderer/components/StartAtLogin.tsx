// The desktop app's "Start at login" switch (off by default); not shown in the web UI of `toolgate serve`.
import { useEffect, useState } from 'react'
import type { DesktopSettings } from '../../shared/ipc'

export function StartAtLogin({ settings }: { settings: DesktopSettings }) {
  const [on, setOn] = useState<boolean | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let live = true
    settings
      .getStartAtLogin()
      .then((v) => live && setOn(v))
      .catch((e: unknown) => live && setError(e instanceof Error ? e.message : String(e)))
    return () => {
      live = false
    }
  }, [settings])

  const change = (next: boolean) => {
    setError(null)
    settings
      .setStartAtLogin(next)
      .then(setOn)
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
  }

  return (
    <label className="setting" title={error ?? 'Start Toolgate in the tray when you log in'}>
      <input type="checkbox" checked={on === true} disabled={on === null} onChange={(e) => change(e.target.checked)} />
      Start at login
    </label>
  )
}
