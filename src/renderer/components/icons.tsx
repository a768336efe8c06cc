// Small inline icons (no icon font, no remote resources). Decorative: hidden from screen readers.
import type { ReactNode } from 'react'

function Svg({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <svg
      className={`icon ${className ?? ''}`}
      viewBox="0 0 16 16"
      width="14"
      height="14"
      aria-hidden="true"
      focusable="false"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {children}
    </svg>
  )
}

export const LockIcon = () => (
  <Svg>
    <rect x="3" y="7" width="10" height="7" rx="1.5" />
    <path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2" />
  </Svg>
)

export const ShieldIcon = () => (
  <Svg>
    <path d="M8 1.8 13 3.8v4c0 3.1-2.1 5.3-5 6.4-2.9-1.1-5-3.3-5-6.4v-4z" />
  </Svg>
)

export const AlertIcon = () => (
  <Svg>
    <path d="M8 2 14.5 13.5h-13z" />
    <path d="M8 6.5v3M8 11.6v.1" />
  </Svg>
)

export const ClockIcon = () => (
  <Svg>
    <circle cx="8" cy="8" r="6" />
    <path d="M8 4.8V8l2.2 1.4" />
  </Svg>
)

export const PowerIcon = () => (
  <Svg>
    <path d="M8 2v5.5" />
    <path d="M4.6 4.2a5 5 0 1 0 6.8 0" />
  </Svg>
)

export const CheckIcon = () => (
  <Svg>
    <path d="m3.5 8.5 3 3 6-7" />
  </Svg>
)

export const ChevronIcon = ({ open }: { open: boolean }) => (
  <Svg className={open ? 'chevron chevron--open' : 'chevron'}>
    <path d="m6 3.5 4.5 4.5L6 12.5" />
  </Svg>
)

export const KeyIcon = () => (
  <Svg>
    <circle cx="5" cy="10.5" r="2.8" />
    <path d="M7 8.5l6-6M11 4.5l1.8 1.8M9.5 6l1.5 1.5" />
  </Svg>
)
