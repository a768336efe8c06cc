// The current time for countdowns ("59 minutes left"), re-rendering every `ms` while mounted.
import { useEffect, useState } from 'react'

export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms)
    return () => clearInterval(t)
  }, [ms])
  return now
}
