// The user's secrets as the control API, IPC and the CLI see them: names, whether each is set,
// which servers use it; setting and removing by name. A value goes in and never comes out.
import { ApiError, type ActionResult, type SecretInfo, type SecretStoreInfo } from '../../../shared/api'
import type { ServerConfig } from '../../../shared/config-schema'
import { SECRET_NAME_RE, SECRET_NAME_RULE, secretsUsedBy } from '../../../shared/secret-refs'
import { MAX_SECRET_BYTES, SecretStoreError, type SecretStore } from '../secrets/store'

/** Every secret that is set or referenced by a server, sorted by name. */
export function listSecrets(store: SecretStore, servers: readonly ServerConfig[]): { secrets: SecretInfo[]; store: SecretStoreInfo } {
  const info = store.info()
  const byName = new Map<string, SecretInfo>()
  const entry = (name: string): SecretInfo => {
    let e = byName.get(name)
    if (!e) byName.set(name, (e = { name, set: false, updated_at: null, used_by: [] }))
    return e
  }
  if (!info.error) {
    try {
      for (const s of store.list()) Object.assign(entry(s.name), { set: true, updated_at: s.updated_at })
    } catch (e) {
      info.error = (e as Error).message
    }
  }
  for (const s of servers) for (const name of secretsUsedBy(s)) entry(name).used_by.push(s.name)
  return { secrets: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), store: info }
}

export function checkSecretName(name: unknown): string {
  if (typeof name !== 'string' || !SECRET_NAME_RE.test(name)) {
    throw new ApiError('invalid_secret_name', `invalid secret name "${String(name)}": ${SECRET_NAME_RULE}`, 400)
  }
  return name
}

function storeError(e: unknown): never {
  if (e instanceof SecretStoreError) throw new ApiError('secret_store', e.message, 409)
  throw e
}

export function setSecret(store: SecretStore, servers: readonly ServerConfig[], name: string, value: unknown): ActionResult {
  checkSecretName(name)
  if (typeof value !== 'string' || value.length === 0) throw new ApiError('invalid_secret_value', `the value of ${name} must be a non-empty string`, 400)
  if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES)
    throw new ApiError('invalid_secret_value', `the value of ${name} is over ${MAX_SECRET_BYTES} bytes`, 400)
  try {
    store.set(name, value)
  } catch (e) {
    storeError(e)
  }
  return { ok: true, message: `Stored secret ${name}.${restartNote(servers, name)}` }
}

export function deleteSecret(store: SecretStore, servers: readonly ServerConfig[], name: string): ActionResult {
  checkSecretName(name)
  let existed: boolean
  try {
    existed = store.delete(name)
  } catch (e) {
    storeError(e)
  }
  if (!existed) throw new ApiError('unknown_secret', `no secret named ${name}; \`toolgate secrets list\` shows the names`, 404)
  return { ok: true, message: `Removed secret ${name}.${restartNote(servers, name)}` }
}

function restartNote(servers: readonly ServerConfig[], name: string): string {
  const users = servers.filter((s) => secretsUsedBy(s).includes(name)).map((s) => s.name)
  return users.length ? ` Used by ${users.join(', ')} (restarted if running).` : ''
}
