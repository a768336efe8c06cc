// What one start of a server launches: its entry with ${secret:…}/${env:…} resolved for this start
// only, judged by the organisation's policy, and the mask of the secrets it carries.
import type { ServerConfig } from '../../../shared/config-schema'
import { makeRedactor } from '../masking/target'
import { launchSecrets, SecretMask } from '../masking/secret-mask'
import { resolveReferences } from '../secrets/resolve'
import type { UpstreamOptions } from './types'

export type LaunchEntry =
  | { ok: true; config: ServerConfig; secretValues: string[]; mask: SecretMask; redact: (text: string) => string }
  /** no retry can help: `log` for Toolgate's log, `error` for the server's lastError */
  | { ok: false; log: string; error: string }

/** The entry `config` launches now; `redact` masks what a refusal quotes of it. */
export function launchEntry(config: ServerConfig, opts: Pick<UpstreamOptions, 'references' | 'launchCheck'>, redact: (text: string) => string): LaunchEntry {
  // ${secret:…}/${env:…} are resolved here, for this connection only; a missing one is an
  // error naming it (retrying cannot help: setting the secret restarts the server)
  const resolved = resolveReferences(config, opts.references)
  if (!resolved.ok) return { ok: false, log: `upstream cannot start: ${resolved.error}`, error: resolved.error }
  // the organisation's policy judges what will run, references resolved
  const blocked = opts.launchCheck?.(resolved.config) ?? null
  if (blocked) return { ok: false, log: `upstream may not start: ${redact(blocked)}`, error: redact(blocked) }
  // the resolved entry: values read through ${env:…} are masked like the rest of env, headers and the URL
  const mask = new SecretMask(launchSecrets(resolved.config, resolved.secretValues))
  return { ok: true, config: resolved.config, secretValues: resolved.secretValues, mask, redact: makeRedactor(resolved.config, resolved.secretValues, mask) }
}
