// The one list of names that say "this value is a secret": env keys, header
// names, URL query keys, argument names and `--flags` of every server. Matched by word, not by
// substring, so `DB_PASS`, `pin`, `otp` and `passphrase` count while `author`, `spinner`,
// `bypass`, `max_tokens` and `keyword` do not. Pure: the core masks with it, the window suggests
// moving such values into the secret store with it.

/** Words that name a secret on their own (`pass` in DB_PASS, `pin`, `otp`, `key` in API_KEY). */
const SECRET_WORDS = new Set([
  'key',
  'keys',
  'token',
  'tokens',
  'secret',
  'secrets',
  'pass',
  'passwd',
  'password',
  'passphrase',
  'passcode',
  'pwd',
  'pin',
  'otp',
  'totp',
  'hotp',
  'mfa',
  '2fa',
  'auth',
  'authorization',
  'bearer',
  'credential',
  'credentials',
  'creds',
  'cred',
  'cookie',
  'cookies',
  'session',
  'sig',
  'signature',
  'jwt',
  'pat',
  'cvv',
  'cvc',
  'mnemonic',
])

/**
 * Compounds found inside the words run together (`PGPASSWORD`, `apiKey`, `Pass_Word`,
 * `x-auth-token`): each is a secret however it is cased or split.
 */
const SECRET_COMPOUNDS = [
  'password',
  'passwd',
  'passphrase',
  'passcode',
  'secret',
  'apikey',
  'apitoken',
  'accesskey',
  'accesstoken',
  'secretkey',
  'privatekey',
  'authtoken',
  'authkey',
  'refreshtoken',
  'idtoken',
  'sessiontoken',
  'sessionkey',
  'bearertoken',
  'clientsecret',
  'masterkey',
  'signingkey',
  'encryptionkey',
  'seedphrase',
  'credential',
  'cookie',
  'bearer',
  'jwt',
]

/** A name ending in one of these names something about a secret, not the secret (`token_url`, `password_file`, `key_id`). */
const NEUTRAL_LAST = new Set([
  'url',
  'urls',
  'uri',
  'endpoint',
  'host',
  'domain',
  'path',
  'file',
  'files',
  'dir',
  'directory',
  'name',
  'names',
  'id',
  'ids',
  'type',
  'types',
  'method',
  'mode',
  'scheme',
  'provider',
  'policy',
  'length',
  'len',
  'size',
  'count',
  'limit',
  'max',
  'min',
  'expiry',
  'expires',
  'expiration',
  'ttl',
  'required',
  'enabled',
  'disabled',
  'env',
  'var',
  'field',
  'format',
  'location',
  'prefix',
  'hint',
])

/** `key` after one of these is a database or lookup key, not a credential (`primary_key`, `sort_key`, `public_key`). */
const NOT_A_CREDENTIAL_KEY = new Set([
  'public',
  'primary',
  'partition',
  'sort',
  'foreign',
  'range',
  'hash',
  'row',
  'unique',
  'composite',
  'idempotency',
  'cache',
])
/** `token` after one of these is a page cursor (`pageToken`, `next_token`). */
const CURSOR_TOKEN = new Set(['page', 'next', 'continuation', 'pagination', 'cursor', 'sync'])
/** `tokens` beside one of these counts a model's tokens (`max_tokens`, `prompt_tokens`, `tokens_used`). */
const TOKEN_COUNT = new Set(['max', 'min', 'num', 'total', 'count', 'limit', 'used', 'usage', 'budget', 'remaining', 'input', 'output', 'prompt', 'completion'])
/** `code` after one of these is a one-time secret (`verification_code`, `recovery_code`). */
const SECRET_CODE = new Set(['verification', 'security', 'recovery', 'backup', 'sms', 'access'])

/** The lower-case words of a name: `X-Api-Key` → x api key, `GITHUB_PERSONAL_ACCESS_TOKEN`, `apiKey`, `APIKey` → api key. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
}

/**
 * The answers for names seen before: every call's activity record asks again for the same few
 * argument keys (three regular expressions each time). Bounded: short names only, and the memo
 * starts over when full, so names an agent makes up cannot grow it.
 */
const SECRET_NAME_MEMO = new Map<string, boolean>()
const MEMO_MAX_ENTRIES = 1024
const MEMO_MAX_NAME = 128

/** Whether a name (env key, header, query key, argument, `--flag`) says its value is a secret. */
export function isSecretName(name: string): boolean {
  if (name.length > MEMO_MAX_NAME) return judgeName(name)
  const known = SECRET_NAME_MEMO.get(name)
  if (known !== undefined) return known
  const secret = judgeName(name)
  if (SECRET_NAME_MEMO.size >= MEMO_MAX_ENTRIES) SECRET_NAME_MEMO.clear()
  SECRET_NAME_MEMO.set(name, secret)
  return secret
}

function judgeName(name: string): boolean {
  const words = nameWords(name)
  if (words.length === 0) return false
  // the shell's working directory, not a password
  if (words.length === 1 && (words[0] === 'pwd' || words[0] === 'oldpwd')) return false
  if (NEUTRAL_LAST.has(words[words.length - 1])) return false
  for (let i = 0; i < words.length; i++) {
    const w = words[i]
    const before = i > 0 ? words[i - 1] : ''
    if ((w === 'key' || w === 'keys') && NOT_A_CREDENTIAL_KEY.has(before)) continue
    if (w === 'tokens' && words.some((x) => TOKEN_COUNT.has(x))) continue
    if (w === 'token' && CURSOR_TOKEN.has(before)) continue
    if (w === 'code' && SECRET_CODE.has(before)) return true
    if (SECRET_WORDS.has(w)) return true
  }
  const joined = words.join('')
  return SECRET_COMPOUNDS.some((c) => joined.includes(c))
}
