// A list of one server's things under its card (its prompts, its resources): the reason when its
// first load failed, nothing while there is nothing to show, else the titled list.
import type { ReactNode } from 'react'

export function ServerListSection({
  server,
  title,
  className,
  error,
  loaded,
  empty,
  children,
}: {
  server: string
  /** "Prompts", "Resources": the heading, and in lower case what could not be loaded */
  title: string
  className: string
  /** the last load's error */
  error: string | undefined
  /** a list came at some load */
  loaded: boolean
  empty: boolean
  children: ReactNode
}) {
  if (error && !loaded)
    return (
      <p className="notice notice--danger">
        Could not load the {title.toLowerCase()}: {error}
      </p>
    )
  if (!loaded || empty) return null
  return (
    <section className={className} aria-label={`${title} of ${server}`}>
      <h3 className="section-title small">{title}</h3>
      <ul className="tools">{children}</ul>
    </section>
  )
}
