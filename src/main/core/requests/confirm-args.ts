// The arguments of a call waiting for confirmation, as people see them. The approver (window, CLI,
// control API) sees them as the agent sent them: what you allow is what you see, so nothing an
// agent chooses can hide behind a mask (a payload under a "password" key, a path that contains
// an env value). The desktop notification, which may sit on screen or in a notification history,
// gets a short preview with secrets masked: values under secret-looking keys, token-looking
// strings, and the target server's own env/header/URL secrets via its redactor. Escaping of
// control, bidi and invisible characters and the size caps come after (shared/confirmations.ts).
import type { ServerConfig } from '../../../shared/config-schema'
import { isSecretName, looksLikeToken, MASK } from '../masking/mask'
import { makeRedactor } from '../masking/target'

/** Longer strings are data (file contents, documents), not credentials: shown as they are. */
const TOKEN_MAX_CHARS = 200

function mask(value: unknown, key: string | null): unknown {
  if (key !== null && isSecretName(key) && value !== null && value !== undefined && value !== '' && typeof value !== 'object') return MASK
  if (typeof value === 'string') return value.length <= TOKEN_MAX_CHARS && looksLikeToken(value) ? MASK : value
  if (Array.isArray(value)) return value.map((v) => mask(v, null))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, mask(v, k)]))
  }
  return value
}

/** The JSON as sent (for the approver), its masked form (for the notification's preview), and the size of the real arguments. */
export function argsForDisplay(args: Record<string, unknown>, server: ServerConfig | undefined): { json: string; masked: string; bytes: number } {
  const raw = JSON.stringify(args) ?? '{}'
  const masked = JSON.stringify(mask(args, null)) ?? '{}'
  return { json: raw, masked: server ? makeRedactor(server)(masked) : masked, bytes: Buffer.byteLength(raw) }
}
