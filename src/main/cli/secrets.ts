// `toolgate secrets set|list|rm NAME`: through the live owner's control API when one runs, else
// on the data dir's store directly (no core, no upstreams started). A value is read from a
// prompt that does not echo, or from stdin when it is not a terminal; never from argv.
import type { ActionResult, SecretInfo, SecretStoreInfo } from '../../shared/api'
import { SecretStore } from '../core/secrets/store'
import { checkSecretName, deleteSecret, listSecrets, setSecret } from '../core/control/secrets-ops'
import { locate, type Where } from './control-client'
import { UsageError } from './errors'

interface SecretsOps {
  list(): Promise<{ secrets: SecretInfo[]; store: SecretStoreInfo }>
  set(name: string, value: string): Promise<ActionResult>
  rm(name: string): Promise<ActionResult>
}

function open(where: Where): SecretsOps {
  const { dataDir, config, live: api } = locate(where)
  if (api) return { list: () => api.secrets(), set: (n, v) => api.setSecret(n, v), rm: (n) => api.deleteSecret(n) }
  const store = new SecretStore({ dataDir })
  return {
    list: async () => listSecrets(store, config.servers),
    set: async (n, v) => setSecret(store, config.servers, n, v),
    rm: async (n) => deleteSecret(store, config.servers, n),
  }
}

export async function secretsList(where: Where, json: boolean): Promise<void> {
  const { secrets, store } = await open(where).list()
  if (json) return void process.stdout.write(JSON.stringify({ secrets, store }, null, 2) + '\n')
  const out: string[] = []
  if (store.error) out.push(`The secret store cannot be read: ${store.error}`)
  else out.push(`Protected by ${store.protected_by}.`)
  if (store.warning) out.push(`WARNING: ${store.warning}${store.warning_detail ? ` (${store.warning_detail})` : ''}`)
  if (secrets.length === 0) out.push('No secrets. Store one with `toolgate secrets set NAME` and use it as ${secret:NAME} in env, headers, args or url.')
  else {
    const rows = [['NAME', 'SET', 'USED BY'], ...secrets.map((s) => [s.name, s.set ? 'yes' : 'NO (not set)', s.used_by.join(', ') || '-'])]
    const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
    out.push(
      ...rows.map((r) =>
        r
          .map((c, i) => c.padEnd(w[i]))
          .join('  ')
          .trimEnd(),
      ),
    )
  }
  process.stdout.write(out.join('\n') + '\n')
}

export async function secretsSet(name: string, where: Where): Promise<void> {
  try {
    checkSecretName(name)
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
  const ops = open(where)
  const value = process.stdin.isTTY ? await promptHidden(`Value for ${name} (not shown): `) : await readStdin()
  if (!value) throw new UsageError(`no value given for ${name}: type it at the prompt, or pipe it in (printf %s "$TOKEN" | toolgate secrets set ${name})`)
  process.stdout.write((await ops.set(name, value)).message + '\n')
}

export async function secretsRm(name: string, where: Where): Promise<void> {
  process.stdout.write((await open(where).rm(name)).message + '\n')
}

/** All of stdin, without one trailing newline (`echo TOKEN |` and `printf %s TOKEN |` give the same). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

/** A line typed at the terminal, echoing nothing; the prompt goes to stderr. */
function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin
    process.stderr.write(prompt)
    let value = ''
    stdin.setRawMode(true)
    stdin.resume()
    stdin.setEncoding('utf8')
    const done = (err?: Error): void => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.off('data', onData)
      process.stderr.write('\n')
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done()
        if (ch === '\u0003') return done(new UsageError('cancelled'))
        if (ch === '\u0004') return done()
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else if (ch >= ' ') value += ch
      }
    }
    stdin.on('data', onData)
  })
}
