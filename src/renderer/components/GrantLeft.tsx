// A time-boxed grant on a tool or server: the time left and what comes back at the end.
import type { TimedGrantInfo } from '../../shared/api'
import { timeLeft } from '../../shared/grant-for'
import { useNow } from '../lib/now'
import { Badge } from './Badge'
import { ClockIcon } from './icons'

export function GrantLeft({ grant }: { grant: TimedGrantInfo }) {
  const now = useNow(1000)
  return (
    <span data-grant-until={grant.until}>
      <Badge tone="info" icon={<ClockIcon />} title={`Allowed until ${new Date(grant.until).toLocaleString()}; then ${grant.then}.`}>
        {timeLeft(grant.until, now)}, then {grant.then}
      </Badge>
    </span>
  )
}
