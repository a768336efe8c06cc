// The OAuth-protected MCP fixture (test/fixtures/servers/oauth-mcp-server.mjs) as a child
// process: its URLs, its test controls, and the browser's part of a sign-in (following the
// authorization URL to the redirect it answers with).
import { spawn } from 'node:child_process'
import path from 'node:path'
import readline from 'node:readline'
import { ROOT, track, killTree } from './cli'

export const OAUTH_FIXTURE = path.join(ROOT, 'test/fixtures/servers/oauth-mcp-server.mjs')

export interface FixtureState {
  counts: Record<'authorize' | 'token_code' | 'token_refresh' | 'refresh_refused' | 'register' | 'mcp_401' | 'mcp_ok' | 'revoke', number>
  issued: { access: string[]; refresh: string[]; codes: string[]; client_secrets: string[] }
  resources: Array<string | null>
  /** every bearer token shown to /mcp */
  seen: string[]
  clients: string[]
}

export interface OAuthFixture {
  url: string
  issuer: string
  pid: number
  state(): Promise<FixtureState>
  control(action: 'revoke-refresh' | 'expire-access' | 'forget-clients' | 'deny' | `redirect?to=${string}`): Promise<void>
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
