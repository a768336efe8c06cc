// The OAuth-protected MCP fixture (test/fixtures/servers/oauth-mcp-server.mjs) as a child
// process: its URLs, its test controls, the browser's part of a sign-in (following the
// authorization URL to the redirect it answers with), and `toolgate auth login` running.
import { spawn } from 'node:child_process'
import path from 'node:path'
import readline from 'node:readline'
import { BIN, ROOT, cliEnv, killTree, track, waitFor, type Env } from './cli'

/** An in-memory stand-in for the secret store's "oauth" namespace, for tests that drive OAuthService directly. */
export class MemorySlots {
  readonly values = new Map<string, string>()
  get = (n: string): string | undefined => this.values.get(n)
  set = (n: string, v: string): void => void this.values.set(n, v)
  delete = (n: string): boolean => this.values.delete(n)
  list = (): Array<{ name: string }> => [...this.values.keys()].map((name) => ({ name }))
}

export const OAUTH_FIXTURE = path.join(ROOT, 'test/fixtures/servers/oauth-mcp-server.mjs')

export interface FixtureState {
  counts: Record<
    'authorize' | 'token_cc' | 'cc_refused' | 'token_code' | 'token_refresh' | 'refresh_refused' | 'register' | 'mcp_401' | 'mcp_403' | 'mcp_ok' | 'revoke',
    number
  >
  /** the scope of every authorization request, in order */
  scopes_asked: Array<string | null>
  issued: { access: string[]; refresh: string[]; codes: string[]; client_secrets: string[] }
  resources: Array<string | null>
  /** every bearer token shown to /mcp */
  seen: string[]
  /** every token revoked at the fixture's /revoke, in order */
  revoked: Array<{ token: string; hint: string | null; client_id: string }>
  clients: string[]
}

export interface OAuthFixture {
  url: string
  issuer: string
  pid: number
  state(): Promise<FixtureState>
  control(action: 'revoke-refresh' | 'expire-access' | 'forget-clients' | 'deny' | 'hold-token' | 'release-token' | `redirect?to=${string}`): Promise<void>
  stop(): Promise<void>
}

export async function startOAuthFixture(args: string[] = []): Promise<OAuthFixture> {
  const child = spawn(process.execPath, [OAUTH_FIXTURE, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT })
  track(child.pid)
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const line = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout })
    rl.once('line', (l) => {
      rl.close()
      resolve(l)
    })
    child.once('exit', (code) => reject(new Error(`the OAuth fixture exited (${code}): ${stderr}`)))
  })
  const info = JSON.parse(line) as { url: string; issuer: string; admin: string }
  return {
    url: info.url,
    issuer: info.issuer,
    pid: child.pid as number,
    async state() {
      return (await (await fetch(`${info.admin}/state`)).json()) as FixtureState
    },
    async control(action) {
      const res = await fetch(`${info.admin}/${action}`, { method: 'POST' })
      if (!res.ok) throw new Error(`fixture ${action}: HTTP ${res.status}`)
    },
    stop: () => killTree(child.pid as number),
  }
}

/**
 * What the browser does with an authorization URL here: the fixture approves at once and
 * redirects; this returns where it redirects to (Toolgate's callback, with code, state and iss).
 */
export async function followAuthorization(authorizationUrl: string): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' })
  const location = res.headers.get('location')
  if (res.status < 300 || res.status >= 400 || !location) {
    throw new Error(`the authorization server answered ${res.status} instead of a redirect: ${await res.text()}`)
  }
  return new URL(location, authorizationUrl)
}

export interface AuthLogin {
  /** the authorization page `toolgate auth login` printed */
  page: URL
  /** resolves with the exit code */
  exited: Promise<number | null>
  stdout(): string
  stderr(): string
  kill(): Promise<void>
}

/** Runs `toolgate auth login SERVER ...flags` until it prints the page to open. */
export async function startAuthLogin(server: string, flags: string[], env: Env = {}): Promise<AuthLogin> {
  const child = spawn(process.execPath, [BIN, 'auth', 'login', server, ...flags], { env: cliEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  track(child.pid)
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s))
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) await killTree(child.pid as number)
  }
  const PAGE = /https?:\/\/\S+authorize\S*/
  await waitFor(() => PAGE.test(out), 30_000, 'the authorization URL on stdout').catch(async (e: Error) => {
    await kill()
    throw new Error(`${e.message}\nstdout: ${out}\nstderr: ${err}`)
  })
  return { page: new URL((PAGE.exec(out) as RegExpExecArray)[0]), exited, stdout: () => out, stderr: () => err, kill }
}
