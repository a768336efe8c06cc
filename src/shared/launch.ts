// What a server runs or connects to, as shown for review (UI card, Inspect dialog, CLI, control
// API): the full launch with secrets masked by the core, and one printable line of it. Pure.
import { escapeControls } from './text'

export interface LaunchEnvVar {
  name: string
  /** the value, or "***" when the key or the value looks like a secret */
  value: string
  masked: boolean
}

/** stdio: command, args, cwd, env; HTTP: url and the names (never the values) of its headers. */
export interface ServerLaunch {
  command?: string
  args?: string[]
  cwd?: string
  env?: LaunchEnvVar[]
  url?: string
  header_names?: string[]
}

/** Quoting for reading only (this text is never executed): an empty word or one with whitespace goes in single quotes. */
export function shellQuote(s: string): string {
  return s !== '' && !/\s/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

/** Quoting for a command the user copies and runs (POSIX shells): anything but plain path characters goes in single quotes. */
export function shellArg(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

/** `cd DIR && K=V … command args…` or `URL (headers: A, B)`; control characters shown as escapes. */
export function launchText(l: ServerLaunch): string {
  if (l.url !== undefined) {
    const headers = l.header_names?.length ? ` (headers: ${l.header_names.join(', ')})` : ''
    return escapeControls(l.url + headers)
  }
  const parts: string[] = []
  if (l.cwd !== undefined) parts.push('cd', shellQuote(l.cwd), '&&')
  for (const e of l.env ?? []) parts.push(`${e.name}=${e.masked ? e.value : shellQuote(e.value)}`)
  if (l.command !== undefined) parts.push(shellQuote(l.command))
  for (const a of l.args ?? []) parts.push(shellQuote(a))
  return escapeControls(parts.join(' '))
}
