// The Add / Edit server form as data: filled from a pasted snippet or a server's entry, turned
// into the ServerInput the core validates plus the values typed into secret fields (stored in
// the secret store and referenced as ${secret:NAME}). Pure, so it is tested without a DOM.
import type { ServerEntryView, ServerInput } from '../../shared/server-entry'
import { findReferences, looksSecret, secretNameFor } from '../../shared/secret-refs'
import type { SecretValue } from '../store/manage'

export interface FormRow {
  key: string
  value: string
  /** keep the value in the secret store (the config gets ${secret:NAME}) */
  secret: boolean
  /** edit: a value is stored but not shown; an empty field keeps it */
  hidden: boolean
}

export interface FormState {
  name: string
  kind: 'stdio' | 'http'
  command: string
  /** one argument per line */
  args: string
  cwd: string
  url: string
  protocol: NonNullable<ServerInput['protocol']>
  env: FormRow[]
  headers: FormRow[]
  enabled: boolean
}

export function emptyForm(): FormState {
  return { name: '', kind: 'stdio', command: '', args: '', cwd: '', url: '', protocol: 'auto', env: [], headers: [], enabled: true }
}

const rows = (o: Record<string, string | null> | undefined, suggestSecrets: boolean): FormRow[] =>
  Object.entries(o ?? {}).map(([key, v]) => ({
    key,
    value: v ?? '',
    hidden: v === null,
    secret: suggestSecrets && v !== null && looksSecret(key, v),
  }))

/** From a pasted snippet: values that look secret are offered as secrets. */
export function formFromInput(i: ServerInput): FormState {
  return {
    ...emptyForm(),
    name: i.name,
    kind: i.url && !i.command ? 'http' : 'stdio',
    command: i.command ?? '',
    args: (i.args ?? []).join('\n'),
    cwd: i.cwd ?? '',
    url: i.url ?? '',
    protocol: i.protocol ?? 'auto',
    env: rows(i.env, true),
    headers: rows(i.headers, true),
    enabled: i.enabled !== false,
  }
}

/** From the server's entry (edit): hidden values stay hidden. */
export function formFromEntry(v: ServerEntryView): FormState {
  return {
    ...emptyForm(),
    name: v.name,
    kind: v.url && !v.command ? 'http' : 'stdio',
    command: v.command ?? '',
    args: (v.args ?? []).join('\n'),
    cwd: v.cwd ?? '',
    url: v.url ?? '',
    protocol: v.protocol,
    env: rows(v.env, false),
    headers: rows(v.headers, false),
    enabled: v.enabled,
  }
}

/** The secret name a secret field is stored under. */
export function secretNameOf(form: FormState, row: FormRow, isEnv: boolean): string {
  return secretNameFor(form.name || 'server', row.key, isEnv)
}

/** The entry to send, and the secret values to store after it. */
export function formToInput(f: FormState): { input: ServerInput; secrets: SecretValue[] } {
  const secrets: SecretValue[] = []
  const map = (list: FormRow[], isEnv: boolean): Record<string, string | null> | undefined => {
    const out: Record<string, string | null> = {}
    for (const r of list) {
      const key = r.key.trim()
      if (!key) continue
      if (r.hidden && r.value === '') out[key] = null
      else if (r.secret && r.value !== '' && findReferences(r.value).length === 0) {
        const name = secretNameOf(f, r, isEnv)
        secrets.push({ name, value: r.value })
        out[key] = `\${secret:${name}}`
      } else out[key] = r.value
    }
    return Object.keys(out).length ? out : undefined
  }
  const input: ServerInput = { name: f.name.trim() }
  if (f.kind === 'stdio') {
    if (f.command.trim()) input.command = f.command.trim()
    const args = f.args.split('\n').filter((a) => a !== '')
    if (args.length) input.args = args
    const env = map(f.env, true)
    if (env) input.env = env
    if (f.cwd.trim()) input.cwd = f.cwd.trim()
  } else {
    if (f.url.trim()) input.url = f.url.trim()
    const headers = map(f.headers, false)
    if (headers) input.headers = headers
    if (f.protocol !== 'auto' && f.protocol !== 'stdio') input.protocol = f.protocol
  }
  if (!f.enabled) input.enabled = false
  return { input, secrets }
}
