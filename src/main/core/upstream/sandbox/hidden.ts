// What a sandboxed upstream never sees, in one list with the reason for each entry: Toolgate's
// own data and config, and the user's credentials (SSH, GPG, cloud CLIs, registry and API
// tokens, browser profiles, keychains, shell histories, the MCP clients' configs that hold other
// servers' tokens). Pure: paths in, paths out. docs/isolation.md prints the same list.
import path from 'node:path'
import { CLIENT_NAMES, clientConfigPath } from '../../clients/paths'

/** One hidden place, relative to each home directory. */
export interface HomeSecret {
  path: string
  /** a file is hidden by hiding its folder's entry (rename-proof); a folder is covered whole */
  kind: 'file' | 'dir'
  why: string
}

const f = (p: string, why: string): HomeSecret => ({ path: p, kind: 'file', why })
const d = (p: string, why: string): HomeSecret => ({ path: p, kind: 'dir', why })

const HISTORY = 'shell and REPL history: commands typed with passwords and tokens in them'
const BROWSER = 'browser profile: cookies, saved passwords, signed-in sessions'
const MCP_CLIENT = "an MCP client's config: other servers' tokens and API keys"

export const HOME_SECRETS: readonly HomeSecret[] = [
  d('.ssh', 'SSH private keys'),
  d('.gnupg', 'GPG private keys'),
  d('.aws', 'AWS CLI credentials'),
  d('.azure', 'Azure CLI credentials'),
  d('.config/gcloud', 'Google Cloud CLI credentials'),
  d('.kube', 'Kubernetes cluster credentials'),
  d('.docker', 'container registry logins (config.json)'),
  f('.netrc', 'passwords per host (curl, git, ftp)'),
  f('.npmrc', 'npm registry tokens'),
  f('.pypirc', 'PyPI upload tokens'),
  f('.git-credentials', "git's credential store (passwords in plain text)"),
  f('.config/git/credentials', "git's credential store, XDG location"),
  d('.config/gh', 'GitHub CLI token'),
  f('.vault-token', 'HashiCorp Vault token'),
  f('.pgpass', 'PostgreSQL passwords'),
  f('.my.cnf', 'MySQL client password'),
  f('.cargo/credentials.toml', 'crates.io token'),
  f('.cargo/credentials', 'crates.io token (older cargo)'),
  f('.terraform.d/credentials.tfrc.json', 'Terraform Cloud token'),
  // stores inside folders a server may be shown (home-view.ts: the toolchain, a folder of PATH)
  d('.local/share/uv/credentials', "uv's credentials store (uv auth login: registry passwords in plain text, in uv's folder that every server is shown)"),
  f('.gem/credentials', 'RubyGems API key (beside the programs of gem install --user-install)'),
  f('.local/share/gem/credentials', 'RubyGems API key, XDG location'),
  f('.config/composer/auth.json', "Composer's registry and GitHub tokens (beside its global programs)"),
  f('.composer/auth.json', "Composer's registry and GitHub tokens (older location)"),
  f('.cache/huggingface/token', 'Hugging Face token'),
  f('.huggingface/token', 'Hugging Face token (older location)'),
  f('.env', 'environment secrets kept in the home folder'),
  d('.toolgate', "Toolgate's default data dir: another instance's keys, even when this one uses another dir"),
  f('.Xauthority', 'X11 session cookie: with it a process can read the screen and type into other windows'),
  // shell and REPL histories
  f('.bash_history', HISTORY),
  f('.zsh_history', HISTORY),
  f('.histfile', HISTORY),
  f('.sh_history', HISTORY),
  f('.local/share/fish/fish_history', HISTORY),
  f('.python_history', HISTORY),
  f('.node_repl_history', HISTORY),
  f('.psql_history', HISTORY),
  f('.mysql_history', HISTORY),
  f('.sqlite_history', HISTORY),
  f('.rediscli_history', HISTORY),
  // browser profiles
  d('.mozilla', BROWSER),
  d('.config/google-chrome', BROWSER),
  d('.config/google-chrome-beta', BROWSER),
  d('.config/chromium', BROWSER),
  d('.config/BraveSoftware', BROWSER),
  d('.config/microsoft-edge', BROWSER),
  d('.config/vivaldi', BROWSER),
  d('.config/opera', BROWSER),
  d('snap/firefox', BROWSER),
  d('snap/chromium', BROWSER),
  d('.var/app/org.mozilla.firefox', BROWSER),
  d('.var/app/com.google.Chrome', BROWSER),
  d('.var/app/org.chromium.Chromium', BROWSER),
  d('Library/Application Support/Google/Chrome', BROWSER),
  d('Library/Application Support/Firefox', BROWSER),
  d('Library/Application Support/BraveSoftware', BROWSER),
  d('Library/Application Support/Microsoft Edge', BROWSER),
  d('Library/Application Support/Chromium', BROWSER),
  d('Library/Safari', BROWSER),
  d('Library/Cookies', 'macOS cookie store'),
  // keychains and password stores
  d('.local/share/keyrings', 'GNOME keyring'),
  d('.local/share/kwalletd', 'KDE wallet'),
  d('.password-store', 'pass password store'),
  d('Library/Keychains', 'macOS keychains'),
  // MCP clients (Claude Desktop's folder also holds its session)
  d('.config/Claude', MCP_CLIENT),
  d('Library/Application Support/Claude', MCP_CLIENT),
  d('.cursor', MCP_CLIENT),
  f('.claude.json', MCP_CLIENT),
  d('.claude', MCP_CLIENT),
  f('.config/Code/User/mcp.json', MCP_CLIENT),
  f('.config/Code/User/settings.json', `${MCP_CLIENT} (VS Code's "mcp" setting)`),
  f('.config/Code - Insiders/User/mcp.json', MCP_CLIENT),
  f('.config/VSCodium/User/mcp.json', MCP_CLIENT),
  f('Library/Application Support/Code/User/mcp.json', MCP_CLIENT),
  f('Library/Application Support/Code/User/settings.json', `${MCP_CLIENT} (VS Code's "mcp" setting)`),
  d('.codeium/windsurf', `${MCP_CLIENT} (Windsurf)`),
  d('.codex', `${MCP_CLIENT} (Codex; also its auth.json)`),
  d('.gemini', `${MCP_CLIENT} (Gemini CLI; also its OAuth credentials)`),
]

/**
 * Whether `name` is a copy or variant of the hidden file `hidden` lying next to it, hidden with it:
 * its name and then `.`, `~` or `-`. An editor's backup (`.netrc~`, `.pgpass.bak`), a tool's
 * (`.claude.json.backup`, Toolgate's own `<file>.toolgate-backup-<time>` of `import --move`), a
 * lock or temp file, `.env.local`, `/etc/shadow-`: the same secrets under another name.
 */
export function isVariantName(name: string, hidden: string): boolean {
  return name.length > hidden.length && name.startsWith(hidden) && /^[.~-]/.test(name.slice(hidden.length))
}

/** One hidden path, absolute. */
export interface HiddenPath {
  path: string
  kind: 'file' | 'dir'
}

/** Outside any home: sockets that hand out root or the session, and root-only secrets. */
export function systemSecrets(opts: { uid: number | null; platform: NodeJS.Platform }): HiddenPath[] {
  if (opts.platform === 'win32') return []
  // docker/podman sockets: whoever talks to them is root on the machine
  const out: HiddenPath[] = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman/podman.sock'].map((p) => ({ path: p, kind: 'file' }))
  // The session bus, keyring, ssh/gpg agents and podman of the user live in /run/user/UID.
  if (opts.uid !== null && opts.platform === 'linux') out.push({ path: `/run/user/${opts.uid}`, kind: 'dir' })
  // A process running as root (without capabilities) still owns these files.
  if (opts.uid === 0) {
    for (const p of ['/etc/shadow', '/etc/gshadow', '/etc/sudoers']) out.push({ path: p, kind: 'file' })
    for (const p of ['/etc/ssh', '/etc/sudoers.d', '/root/.ssh']) out.push({ path: p, kind: 'dir' })
  }
  return out
}

export interface HiddenInputs {
  /** every home directory to protect: $HOME and the account's home from the password database */
  homes: string[]
  dataDir: string
  configPath: string
  /** $TOOLGATE_COMPILE_CACHE_DIR when set: Toolgate's compiled code, kept outside the data dir */
  compileCache?: string | null
  uid: number | null
  platform: NodeJS.Platform
}

/** Every path the default profile hides (absolute, deduplicated; existence is checked later). */
export function hiddenPaths(inp: HiddenInputs): HiddenPath[] {
  const p = inp.platform === 'win32' ? path.win32 : path.posix
  const out = new Map<string, HiddenPath['kind']>([
    [p.resolve(inp.dataDir), 'dir'],
    [p.resolve(inp.configPath), 'file'],
    ...(inp.compileCache ? ([[p.resolve(inp.compileCache), 'dir']] as const) : []),
  ])
  const add = (file: string, kind: HiddenPath['kind']): void => void (out.has(file) || out.set(file, kind))
  for (const home of inp.homes) {
    for (const s of HOME_SECRETS) add(p.join(home, ...s.path.split('/')), s.kind)
    for (const client of CLIENT_NAMES) {
      if (client === 'vscode') continue // a workspace file: depends on the folder, not the home
      add(clientConfigPath(client, { home, platform: inp.platform }), 'file')
    }
  }
  for (const s of systemSecrets(inp)) add(s.path, s.kind)
  return [...out].map(([file, kind]) => ({ path: file, kind }))
}
