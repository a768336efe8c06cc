// What an upstream runs or connects to, secret-free: the one-line target for logs, the full
// launch for review surfaces, and a redactor that masks this server's
// secrets in any text (logs, last_error). The rules live in mask.ts and secret-mask.ts.
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'
import { shellQuote, type ServerLaunch } from '../../../shared/launch'
import { envValueMasked, MASK, maskArgs, maskUrl } from './mask'
import { launchSecrets, LOG_RULES, SecretMask } from './secret-mask'

export { maskUrl }

/** "node /x/y.js --flag" for stdio upstreams, the (masked) URL for HTTP ones. Env values never appear. */
export function describeTarget(config: ServerConfig): string {
  if (usesStdio(config) && config.command) return [config.command, ...maskArgs(config.args ?? [])].map(shellQuote).join(' ')
  if (config.url) return maskUrl(config.url)
  return '(no command or url)'
}

/** The full launch for review: every argument, cwd, every env key (values masked only when secret-looking), URL, header names. */
export function describeLaunch(config: ServerConfig): ServerLaunch {
  if (usesStdio(config) && config.command) {
    const launch: ServerLaunch = { command: config.command }
    if (config.args?.length) launch.args = maskArgs(config.args)
    if (config.cwd !== undefined) launch.cwd = config.cwd
    const env = Object.entries(config.env ?? {})
    if (env.length) {
      launch.env = env.map(([name, value]) => {
        const masked = envValueMasked(name, value)
        return { name, value: masked ? MASK : value, masked }
      })
    }
    return launch
  }
  const launch: ServerLaunch = { url: config.url ? maskUrl(config.url) : '' }
  const headers = Object.keys(config.headers ?? {})
  if (headers.length) launch.header_names = headers
  return launch
}

/**
 * A function that masks this server's secrets in any text (error messages, logs, stderr lines):
 * every env and header value (LOG_RULES: 4+ characters anywhere, shorter where they stand alone),
 * URL credentials, secret-looking query values and path segments, secret-looking argv values,
 * their encoded forms, and any other URL's credentials. Error texts from fetch and the SDK quote
 * the URL, and upstreams sometimes echo their own env. `extra`: more values to mask (what the
 * server's content mask knows, OAuth tokens included).
 */
export function makeRedactor(config: ServerConfig, knownSecrets: readonly string[] = [], extra?: SecretMask): (text: string) => string {
  const mask = new SecretMask(launchSecrets(config, knownSecrets, true), LOG_RULES)
  const urlPairs: Array<[string, string]> = []
  for (const raw of [config.url, ...(config.args ?? []).flatMap((a) => /[a-z][a-z0-9+.-]*:\/\/\S+/gi.exec(a) ?? [])]) {
    if (raw) urlPairs.push([raw, maskUrl(raw)])
  }
  return (text: string): string => {
    let out = text
    for (const [raw, safe] of urlPairs) out = out.split(raw).join(safe)
    if (extra) out = extra.text(out)
    out = mask.text(out)
    // any other URL in the text (an upstream may print one it was given): credentials, secret query values, token-like segments
    return out.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>()]+/gi, (u) => maskUrl(u))
  }
}
