// What a sandboxed upstream never sees: Toolgate's own data and config, and the user's
// credentials (SSH, GPG, cloud CLIs, package registry tokens, browser profiles, keychains, the
// MCP clients' config files that hold other servers' tokens). Pure: paths in, paths out.
import path from 'node:path'
import { CLIENT_NAMES, clientConfigPath } from '../../clients/paths'

/** Relative to each home directory; folders and files alike. */
export const HOME_SECRETS: readonly string[] = [
  // the list of the issue (README "Isolation")
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.config/gh',
  // Toolgate's default data dir (another instance's key, even when this one uses another dir)
  '.toolgate',
  // X11 session cookie: with it a process can read the screen and type into other windows
  '.Xauthority',
  // browser profiles (cookies, saved passwords, sessions)
  '.mozilla',
  '.config/google-chrome',
  '.config/google-chrome-beta',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  'snap/firefox',
  'snap/chromium',
  '.var/app/org.mozilla.firefox',
  '.var/app/com.google.Chrome',
  '.var/app/org.chromium.Chromium',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware',
  'Library/Application Support/Microsoft Edge',
  'Library/Application Support/Chromium',
  'Library/Safari',
  'Library/Cookies',
  // keychains and password stores
  '.local/share/keyrings',
  '.local/share/kwalletd',
  '.password-store',
  'Library/Keychains',
  // MCP clients: their configs hold other servers' tokens (Claude Desktop's folder also its session)
  '.config/Claude',
  'Library/Application Support/Claude',
  '.cursor',
  '.claude.json',
  '.claude',
]

/** Outside any home: sockets that hand out root or the session, and root-only secrets. */
export function systemSecrets(opts: { uid: number | null; platform: NodeJS.Platform }): string[] {
  if (opts.platform === 'win32') return []
  const out = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock']
  // The session bus, keyring, ssh/gpg agents and podman of the user live in /run/user/UID.
  if (opts.uid !== null && opts.platform === 'linux') out.push(`/run/user/${opts.uid}`)
  // A process running as root (without capabilities) still owns these files.
  if (opts.uid === 0) out.push('/etc/shadow', '/etc/gshadow', '/etc/ssh', '/etc/sudoers', '/etc/sudoers.d', '/root/.ssh')
  return out
}

export interface HiddenInputs {
  /** every home directory to protect: $HOME and the account's home from the password database */
  homes: string[]
  dataDir: string
  configPath: string
  uid: number | null
  platform: NodeJS.Platform
}

/** Every path the default profile hides (absolute, deduplicated; existence is checked later). */
export function hiddenPaths(inp: HiddenInputs): string[] {
  const p = inp.platform === 'win32' ? path.win32 : path.posix
  const out = new Set<string>([p.resolve(inp.dataDir), p.resolve(inp.configPath)])
  for (const home of inp.homes) {
    for (const rel of HOME_SECRETS) out.add(p.join(home, ...rel.split('/')))
    for (const client of CLIENT_NAMES) {
      if (client === 'vscode') continue // a workspace file: depends on the folder, not the home
      out.add(clientConfigPath(client, { home, platform: inp.platform }))
    }
  }
  for (const s of systemSecrets(inp)) out.add(s)
  return [...out]
}
