// Resolving a server's `${secret:NAME}` / `${env:NAME}` references at the moment it starts
// (connect, Inspect). The resolved entry lives only in the starting connection: it is never
// written back, never part of the identity hash (that covers the reference text), and every
// resolved secret value is handed to the redactor so no message can carry it.
import type { ServerConfig } from '../../../shared/config-schema'
import { findReferences, referencingStrings, substitute, type Reference } from '../../../shared/secret-refs'
import { isSecretName, looksLikeToken } from '../masking/mask'

/** What resolution reads: the user's secrets (by name) and Toolgate's own environment. */
export interface ReferenceSource {
  secret(name: string): string | undefined
  env: NodeJS.ProcessEnv
}

/** `secretValues`: what the redactor masks — every secret used, and `${env:…}` values with a secret-looking name or look. */
export type Resolution = { ok: true; config: ServerConfig; secretValues: string[] } | { ok: false; error: string }

export class MissingReferenceError extends Error {
  constructor(readonly ref: Reference) {
    super(
      ref.kind === 'secret'
        ? `secret ${ref.name} is not set: toolgate secrets set ${ref.name}`
        : `environment variable ${ref.name} is not set in Toolgate's environment (the config asks for \${env:${ref.name}})`,
    )
    this.name = 'MissingReferenceError'
  }
}

/** Whether a server entry uses any reference (nothing to resolve otherwise). */
export function hasReferences(config: ServerConfig): boolean {
  return referencingStrings(config).some(({ value }) => findReferences(value).length > 0)
}

/**
 * The entry with every reference replaced by its value, and the secret values used (for the
 * redactor). A missing secret or variable, or a store that cannot be opened, is an error that
 * names it, never a crash and never a value.
 */
export function resolveReferences(config: ServerConfig, source: ReferenceSource | undefined): Resolution {
  if (!hasReferences(config)) return { ok: true, config, secretValues: [] }
  const secretValues = new Set<string>()
  const lookup = (ref: Reference): string => {
    let value: string | undefined
    if (ref.kind === 'secret') {
      value = source?.secret(ref.name)
      if (value !== undefined) secretValues.add(value)
    } else {
      value = (source?.env ?? process.env)[ref.name]
      // ${env:GITHUB_TOKEN} carries a secret as much as ${secret:…} does: masked like one
      if (value && (isSecretName(ref.name) || looksLikeToken(value))) secretValues.add(value)
    }
    if (value === undefined) throw new MissingReferenceError(ref)
    return value
  }
  try {
    const sub = (v: string): string => substitute(v, lookup)
    const mapValues = (o: Record<string, string> | undefined) => (o ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, sub(v)])) : undefined)
    const resolved: ServerConfig = {
      ...config,
      ...(config.env ? { env: mapValues(config.env) } : {}),
      ...(config.headers ? { headers: mapValues(config.headers) } : {}),
      ...(config.args ? { args: config.args.map(sub) } : {}),
      ...(config.url !== undefined ? { url: sub(config.url) } : {}),
      ...(config.oauth?.client_secret !== undefined ? { oauth: { ...config.oauth, client_secret: sub(config.oauth.client_secret) } } : {}),
    }
    return { ok: true, config: resolved, secretValues: [...secretValues] }
  } catch (e) {
    if (e instanceof MissingReferenceError) return { ok: false, error: e.message }
    // the store could not be opened: its message names the file and what to do, never a value
    return { ok: false, error: `cannot read the secrets of server "${config.name}": ${(e as Error).message}` }
  }
}
