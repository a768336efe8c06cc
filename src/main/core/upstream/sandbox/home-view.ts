// What a sandboxed server sees of a home's hidden entries (Linux): none by default. Every entry
// of the home whose name starts with a dot (and ~/snap, each snap app's data) is left out of the
// home the server sees, whatever its name and whenever it was created; shown are only its own
// caches and grants (plan.ts), the toolchain folders below, and the folders its launch runs
// from. The credentials list (hidden.ts) still applies inside what is shown. Pure: paths in,
// paths out. docs/isolation.md says the same.
import path from 'node:path'

/**
 * Whether an entry directly in a home is hidden unless shown: dot-entries, and ~/snap (per-app
 * data of snaps) in any case or width (`Snap`, `SNAP`): on a case-insensitive filesystem that is
 * the same folder, and snapd uses a `Snap` that was there first. On ext4 an ordinary `~/Snap` is
 * hidden too, like `.config/GH` in a granted `~/.config` (folded below); a grant of it shows it.
 */
export function hiddenInHome(name: string): boolean {
  return name.startsWith('.') || (name.length === 4 && folded(name) === 'snap')
}

/**
 * Folders of the home that hold many apps' data (XDG bases): never shown whole because of a
 * launch; a path below one shows its app's folder (`~/.local/share/uv`, `~/.config/myapp`).
 */
export const SHARED_BASES = ['.config', '.local', '.local/share', '.local/state', '.local/lib', '.cache']

/** Shown to every server (read-only, when they exist): programs and their runtimes, no app data. */
export const TOOLCHAIN_DIRS: ReadonlyArray<{ path: string; why: string }> = [
  { path: '.local/bin', why: "programs installed for the user (pip --user, uv tool, pipx, the installers' links)" },
  { path: '.local/lib', why: "Python's user site-packages (pip install --user)" },
  { path: '.local/share/uv', why: "uv's managed Pythons and tools (uvx, uv tool install)" },
  { path: '.local/share/pipx', why: "pipx's virtual environments" },
  { path: '.local/pipx', why: "pipx's virtual environments (older location)" },
]

/**
 * Whether the resolved path `p` is `dir` or below it: string steps, for paths already resolved
 * (path.resolve, realpath, path.join), asked for every hidden path of every plan.
 */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)
}

/** The entry of `home` that `p` lies in (`<home>/<first segment>`), when that entry is hidden unless shown. */
export function hiddenEntryOf(p: string, home: string): string | null {
  // (string steps, not path.relative: asked for every hidden path of every plan; both are resolved)
  const prefix = home.endsWith(path.sep) ? home : home + path.sep
  if (!p.startsWith(prefix) || p.length === prefix.length) return null
  const end = p.indexOf(path.sep, prefix.length)
  const first = p.slice(prefix.length, end < 0 ? undefined : end)
  return hiddenInHome(first) ? prefix + first : null
}

/**
 * The folder a launch shows for a folder `dir` it runs from (a folder of PATH, the program's
 * own): the whole hidden entry of the home it lies in (`~/.nvm` for
 * `~/.nvm/versions/node/v20/bin`, `~/.cargo` for `~/.cargo/bin`), or below a shared base the
 * app's folder in it (`~/.local/share/pnpm`, `~/.local/bin`). Null when `dir` is not in a hidden
 * entry of `home`, or is a shared base itself.
 */
export function launchFolder(dir: string, home: string): string | null {
  const entry = hiddenEntryOf(dir, home)
  if (!entry) return null
  const rel = path.relative(home, dir).split(path.sep)
  // the deepest shared base `dir` lies below (or is)
  let base = 0
  for (let n = 1; n <= rel.length; n++) if (SHARED_BASES.includes(rel.slice(0, n).join('/'))) base = n
  if (base === 0) return entry
  if (base === rel.length) return null
  return path.join(home, ...rel.slice(0, base + 1))
}

/**
 * The folder a program at `dir` shows: its own (the parent of a `bin`), never a whole hidden
 * entry or shared base (an agent names the command of a server it adds: it must not open
 * `~/.vscode` whole by naming a program deep in it). Null when `dir` is not in a hidden entry.
 */
export function programFolder(dir: string, home: string): string | null {
  const entry = hiddenEntryOf(dir, home)
  if (!entry) return null
  const own = path.basename(dir) === 'bin' ? path.dirname(dir) : dir
  const wide = (p: string): boolean => p === home || SHARED_BASES.includes(path.relative(home, p).split(path.sep).join('/'))
  if (!wide(own)) return own
  return wide(dir) ? null : dir
}

/**
 * What a launch shows in the hidden entries of its homes: the toolchain, for each folder of
 * Toolgate's PATH (as written and resolved) the folder it lies in, and the program's own folder.
 */
export function launchShown(homes: readonly string[], pathDirs: readonly string[], programDirs: readonly string[]): Array<{ path: string; home: string }> {
  const out: Array<{ path: string; home: string }> = []
  for (const home of homes) {
    for (const t of TOOLCHAIN_DIRS) out.push({ path: path.join(home, ...t.path.split('/')), home })
    for (const d of pathDirs) {
      const shown = launchFolder(d, home)
      if (shown) out.push({ path: shown, home })
    }
    for (const d of programDirs) {
      const shown = programFolder(d, home)
      if (shown) out.push({ path: shown, home })
    }
  }
  return out
}

/**
 * A path as a case-insensitive, Unicode-normalizing filesystem compares it (casefolded ext4,
 * vfat, exFAT, NTFS): `.config/GH` is `.config/gh` there. Entries are left out by this form.
 */
export function folded(p: string): string {
  return p.normalize('NFKC').toLowerCase()
}
