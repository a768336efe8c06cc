// Which folders of a home's hidden entries a launch shows (home-view.ts): the rules as a table,
// for a home at /h. The sandbox itself is tried in test/integration/sandbox-home-hidden.test.ts.
import { describe, expect, it } from 'vitest'
import { folded, hiddenEntryOf, hiddenInHome, launchFolder, launchShown, programFolder, within } from '../../src/main/core/upstream/sandbox/home-view'

describe('home view', () => {
  it('hidden entries: every dot-name and snap in any case or width; ordinary names are not', () => {
    for (const n of ['.aws', '.AWS', '.\u0430ws', '.config', '..x', '.', 'snap', 'Snap', 'SNAP', '\uff53\uff4e\uff41\uff50'])
      expect(hiddenInHome(n), n).toBe(true)
    for (const n of ['Documents', 'aws', '\uff0eaws', 'snaps', 'snapshots', 'Snap2', 'sn\u0430p']) expect(hiddenInHome(n), n).toBe(false)
  })

  it('a PATH folder shows its whole hidden entry, or the app folder below a shared base, never a base or an ordinary folder', () => {
    const table: Array<[string, string | null]> = [
      ['/h/.nvm/versions/node/v22/bin', '/h/.nvm'],
      ['/h/.cargo/bin', '/h/.cargo'],
      ['/h/.local/bin', '/h/.local/bin'],
      ['/h/.local/share/pnpm', '/h/.local/share/pnpm'],
      ['/h/.local/share/pnpm/bin', '/h/.local/share/pnpm'],
      ['/h/.config/myapp/bin', '/h/.config/myapp'],
      ['/h/.local/lib/python3.12/bin', '/h/.local/lib/python3.12'],
      ['/h/.config', null],
      ['/h/.local/share', null],
      ['/h/bin', null],
      ['/h', null],
      ['/usr/bin', null],
      ['/h2/.nvm/bin', null],
    ]
    for (const [dir, shown] of table) expect(launchFolder(dir, '/h'), dir).toBe(shown)
  })

  it("a program's folder is its own (a bin's parent), never a whole entry it lies deep in", () => {
    const table: Array<[string, string | null]> = [
      ['/h/.myserver/bin', '/h/.myserver'],
      ['/h/.vscode/extensions/ext/bin', '/h/.vscode/extensions/ext'],
      ['/h/.vscode/extensions/ext/dist', '/h/.vscode/extensions/ext/dist'],
      ['/h/.local/bin', '/h/.local/bin'],
      ['/h/.config/bin', '/h/.config/bin'],
      ['/h/.config', null],
      ['/h/tools/bin', null],
    ]
    for (const [dir, shown] of table) expect(programFolder(dir, '/h'), dir).toBe(shown)
  })

  it('the toolchain is shown in every home; PATH and program folders in the home they lie in', () => {
    const shown = launchShown(['/h', '/root'], ['/root/.cargo/bin', '/usr/bin'], ['/h/.tool/bin']).map((s) => s.path)
    expect(shown).toContain('/h/.local/share/uv')
    expect(shown).toContain('/root/.local/bin')
    expect(shown).toContain('/root/.cargo')
    expect(shown).toContain('/h/.tool')
    expect(shown).not.toContain('/h/.cargo')
  })

  it('the hidden entry a path lies in; a neighbour home with a longer name is not inside', () => {
    expect(hiddenEntryOf('/h/.aws/credentials', '/h')).toBe('/h/.aws')
    expect(hiddenEntryOf('/h/.aws', '/h')).toBe('/h/.aws')
    expect(hiddenEntryOf('/h/docs/.git', '/h')).toBeNull()
    expect(hiddenEntryOf('/h', '/h')).toBeNull()
    expect(hiddenEntryOf('/h2/.aws', '/h')).toBeNull()
    expect(hiddenEntryOf('/.aws/x', '/')).toBe('/.aws')
    expect(within('/h/.aws', '/h')).toBe(true)
    expect(within('/h', '/h')).toBe(true)
    expect(within('/h2', '/h')).toBe(false)
    expect(within('/x', '/')).toBe(true)
  })

  it('folded: the form a case-insensitive filesystem compares', () => {
    expect(folded('/h/.config/GH')).toBe('/h/.config/gh')
    expect(folded('/h/.config/\uff47\uff48')).toBe('/h/.config/gh')
  })
})
