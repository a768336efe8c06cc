// The one list of secret-looking names, over names real MCP servers and their
// docs use: env keys, headers, URL query keys and tool argument names. Both ways: every secret
// name is caught, and the ordinary names beside them are not (a false positive hides a value a
// reviewer needs, `author` and `max_tokens` included).
import { describe, expect, it } from 'vitest'
import { isSecretName, nameWords } from '../../src/shared/secret-names'
import { maskArgs } from '../../src/main/core/masking/mask'
import { argsPreview } from '../../src/main/core/activity/redact'
import { looksSecret } from '../../src/shared/secret-refs'

/** Secrets as real servers name them (their READMEs, MCP registries, the issue's own examples). */
const SECRET = [
  // env keys of popular servers
  'GITHUB_PERSONAL_ACCESS_TOKEN',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_PAT',
  'GITLAB_PERSONAL_ACCESS_TOKEN',
  'BRAVE_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'SLACK_BOT_TOKEN',
  'SENTRY_AUTH_TOKEN',
  'LINEAR_API_KEY',
  'POSTGRES_PASSWORD',
  'PGPASSWORD',
  'MYSQL_PWD',
  'MYSQL_PASSWORD',
  'DB_PASS',
  'DB_PASSWORD',
  'REDIS_PASSWORD',
  'SMTP_PASS',
  'IMAP_PASS',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AZURE_CLIENT_SECRET',
  'CLOUDFLARE_API_TOKEN',
  'STRIPE_SECRET_KEY',
  'TWILIO_AUTH_TOKEN',
  'JIRA_API_TOKEN',
  'CONFLUENCE_API_TOKEN',
  'HF_TOKEN',
  'VAULT_TOKEN',
  'NPM_TOKEN',
  'DOCKER_PASSWORD',
  'TELEGRAM_BOT_TOKEN',
  'DISCORD_TOKEN',
  'GPG_PASSPHRASE',
  'SSH_PASSPHRASE',
  'KEEPASS_PASSWORD',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'WEBHOOK_SECRET',
  'ENCRYPTION_KEY',
  'JWT_SECRET',
  // headers
  'Authorization',
  'Proxy-Authorization',
  'X-Api-Key',
  'x-api-key',
  'X-Auth-Token',
  'X-Goog-Api-Key',
  'Cookie',
  'Set-Cookie',
  'X-Amz-Signature',
  // URL query keys
  'api_key',
  'apiKey',
  'access_token',
  'sig',
  'token',
  'key',
  // tool argument names
  'password',
  'pass',
  'passphrase',
  'passcode',
  'pin',
  'PIN',
  'pin_code',
  'pinCode',
  'sim_pin',
  'otp',
  'otp_code',
  'totp',
  'mfa_code',
  'verification_code',
  'recovery_code',
  'client_secret',
  'clientSecret',
  'private_key',
  'privateKey',
  'refresh_token',
  'id_token',
  'bearer_token',
  'sessionToken',
  'session',
  'credentials',
  'mnemonic',
  'seed_phrase',
  'cvv',
  'APIKey',
  'apiKeys',
  'tokens',
  'keys',
  'API_KEY_2',
  'password1',
  'userPassword',
  '--password',
  '--api-key',
  '--token',
]

/** Names beside them that hold no secret. */
const PLAIN = [
  'path',
  'PATH',
  'PWD',
  'OLDPWD',
  'query',
  'owner',
  'repo',
  'author',
  'authors',
  'authority',
  'keyword',
  'keywords',
  'keyboard',
  'spinner',
  'mapping',
  'ping',
  'pinned',
  'pins',
  'shipping',
  'opinion',
  'bypass',
  'passthrough',
  'compass',
  'passenger',
  'footprint',
  'max_tokens',
  'maxTokens',
  'tokens_used',
  'prompt_tokens',
  'completionTokens',
  'public_keys',
  'tokenizer',
  'token_count',
  'pageToken',
  'next_token',
  'public_key',
  'publicKey',
  'primary_key',
  'sort_key',
  'partition_key',
  'session_id',
  'sessionId',
  'client_id',
  'AWS_ACCESS_KEY_ID',
  'token_url',
  'auth_url',
  'authorization_endpoint',
  'password_file',
  'PASSWORD_STORE_DIR',
  'SSH_KEY_PATH',
  'secret_name',
  'auth_required',
  'code',
  'timecode',
  'MEMORY_FILE_PATH',
  'LOG_LEVEL',
  'NODE_ENV',
  'ALLOWED_DIRECTORIES',
  'SLACK_TEAM_ID',
  'oauth',
  'is_private',
  'thoughtNumber',
  'entityType',
]

describe('isSecretName', () => {
  it.each(SECRET)('%s is a secret name', (name) => {
    expect(isSecretName(name)).toBe(true)
  })

  it.each(PLAIN)('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false)
  })

  it('splits names into words however they are written', () => {
    expect(nameWords('GITHUB_PERSONAL_ACCESS_TOKEN')).toEqual(['github', 'personal', 'access', 'token'])
    expect(nameWords('xApiKey')).toEqual(['x', 'api', 'key'])
    expect(nameWords('APIKey')).toEqual(['api', 'key'])
    expect(nameWords('X-Auth-Token')).toEqual(['x', 'auth', 'token'])
    expect(nameWords('--db.pass')).toEqual(['db', 'pass'])
  })
})

describe('every surface uses the one list', () => {
  it('argv: DB_PASS=value, --pin value and --passphrase=value are masked', () => {
    expect(maskArgs(['env', 'DB_PASS=hunter2', 'node', 'srv.js', '--pin', '4711', '--passphrase=open sesame', '--author', 'ada'])).toEqual([
      'env',
      'DB_PASS=***',
      'node',
      'srv.js',
      '--pin',
      '***',
      '--passphrase=***',
      '--author',
      'ada',
    ])
  })

  it('activity previews mask pin, otp and pass arguments and keep author and max_tokens', () => {
    const preview = JSON.parse(
      argsPreview({ pin: '4711', otp: '123456', pass: 'hunter2', author: 'ada', max_tokens: 400, note: 'DB_PASS=hunter2' }, (t) => t),
    ) as Record<string, unknown>
    expect(preview).toEqual({ pin: '***', otp: '***', pass: '***', author: 'ada', max_tokens: 400, note: 'DB_PASS=***' })
  })

  it('the window suggests the secret store for the same names', () => {
    expect(looksSecret('SMTP_PASS', 'hunter2')).toBe(true)
    expect(looksSecret('OTP_SEED', 'x')).toBe(true)
    expect(looksSecret('AUTHOR', 'ada')).toBe(false)
  })
})

describe('isSecretName remembers its answers without changing them', () => {
  it('answers the same after the memo filled and started over, for short and long names', () => {
    const names = ['api_key', 'path', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'max_tokens', 'pageToken', 'verification_code', 'pwd']
    const first = names.map((n) => isSecretName(n))
    expect(first).toEqual([true, false, true, false, false, true, false])
    // more distinct names than the memo holds: it starts over, the answers stay
    for (let i = 0; i < 3000; i++) expect(isSecretName(`field_${i}`)).toBe(false)
    expect(names.map((n) => isSecretName(n))).toEqual(first)
    const long = `${'x'.repeat(200)}_password`
    expect(isSecretName(long)).toBe(true)
    expect(isSecretName(long)).toBe(true)
  })
})
