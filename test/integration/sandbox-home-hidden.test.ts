// The home's hidden (dot) entries from inside a real bwrap sandbox, while the server runs: what
// the user or another app creates there after the server started (`aws configure`, a new app's
// ~/.config/<app>, a keyring in ~/.local/share) is out of its sight, like what was there at the
// start; and the ways around it an attacker would try (symlinks, renames, grants inside hidden
// folders, look-alike names). Each server is a shell that says READY, waits until the test made
// its changes on the host, then reads. bwrap must be installed (.ci/run installs it).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ServerConfig } from '../../src/shared/config-schema'
import { catAll, probeWorld, runProbe, useProbeRoots, waitThen, type ProbeWorld } from '../helpers/sandbox-probe'

const roots = useProbeRoots()

/** A fresh world (helpers/sandbox-probe) whose home already has app settings and local data. */
function world(): ProbeWorld {
  const w = probeWorld(roots, 'tg-home-hidden-')
  w.put('.config/app-settings/settings.json', 'EXISTING-APP-SETTINGS')
  w.put('.local/share/recently-used.xbel', 'EXISTING-LOCAL-SHARE')
  return w
}

/**
 * Starts `script` with sh in the sandbox the entry would get (HOME = the world's home), waits
 * until it says READY, runs `meanwhile` on the host, lets it go on, and returns what it printed.
 */
const live = (w: ProbeWorld, script: string, meanwhile: () => void, extra: Partial<ServerConfig> = {}): Promise<string> =>
  runProbe(w, { command: '/bin/sh', args: ['-c', waitThen(w, script)], ...extra }, meanwhile)

describe('hidden entries of the home created while a sandboxed server runs', () => {
  it('a credentials folder created later inside an existing hidden folder (~/.config/gcloud, a new app in ~/.config, a keyring in ~/.local/share) is out of sight', async () => {
    const w = world()
    const later = {
      '.config/gcloud/credentials.db': 'LATE-GCLOUD-SECRET',
      '.config/newapp/token': 'LATE-NEWAPP-SECRET',
      '.local/share/keyrings/login.keyring': 'LATE-KEYRING-SECRET',
      '.aws/credentials': 'LATE-AWS-SECRET',
      '.newapp/session': 'LATE-DOTAPP-SECRET',
    }
    const files = Object.keys(later).map((r) => path.join(w.home, r))
    const out = await live(w, catAll([...files, path.join(w.home, 'notes.txt')], [w.home, path.join(w.home, '.config')]), () => {
      for (const [rel, text] of Object.entries(later)) w.put(rel, text)
    })
    expect(out).toContain('ordinary file')
    for (const text of Object.values(later)) expect(out).not.toContain(text)
    for (const f of files) expect(out).toContain(`NO ${f}`)
  })
})

describe('hidden entries of the home at the start', () => {
  it("every hidden entry is out of sight, listed or not (another app's folder, ~/.gitconfig, ~/snap); ordinary entries are seen", async () => {
    const w = world()
    w.put('.thunderbird/profile/prefs.js', 'EXISTING-MAIL-PROFILE')
    w.put('.gitconfig', '[user] EXISTING-GITCONFIG')
    w.put('snap/slack/common/token', 'EXISTING-SNAP-DATA')
    w.put('Documents/plan.md', 'ORDINARY-DOC')
    const out = await live(
      w,
      catAll(
        ['.thunderbird/profile/prefs.js', '.gitconfig', 'snap/slack/common/token', '.config/app-settings/settings.json', 'Documents/plan.md'].map((r) =>
          path.join(w.home, r),
        ),
        [w.home],
      ),
      () => undefined,
    )
    for (const text of ['EXISTING-MAIL-PROFILE', 'EXISTING-GITCONFIG', 'EXISTING-SNAP-DATA', 'EXISTING-APP-SETTINGS']) expect(out).not.toContain(text)
    expect(out).toContain('ORDINARY-DOC')
    const listing = out.split('\n').find((l) => l.startsWith(`LS ${w.home}:`)) ?? ''
    // what is left of the hidden entries: the server's own caches
    expect(listing.split(': ')[1].trim().split(' ').sort()).toEqual(['.cache', '.npm', 'Documents', 'notes.txt'])
  })

  it('a server that may write the home: the hidden entries there at its start are covered where they lie', async () => {
    const w = world()
    w.put('.thunderbird/profile/prefs.js', 'EXISTING-MAIL-PROFILE')
    w.put('.gitconfig', '[user] EXISTING-GITCONFIG')
    const out = await live(
      w,
      `${catAll([path.join(w.home, '.thunderbird/profile/prefs.js'), path.join(w.home, '.gitconfig'), path.join(w.home, '.config/app-settings/settings.json')])}; echo x > ${w.home}/written.txt && echo WROTE-HOME`,
      () => undefined,
      { sandbox: { fs_write: ['~'] } },
    )
    expect(out).toContain('WROTE-HOME')
    for (const text of ['EXISTING-MAIL-PROFILE', 'EXISTING-GITCONFIG', 'EXISTING-APP-SETTINGS']) expect(out).not.toContain(text)
  })
})

describe('ways around it', () => {
  it('symlinks in the home into hidden folders lead nowhere: existing ones, ones in an ordinary folder made later, a dot-named link to an ordinary folder', async () => {
    const w = world()
    w.put('.aws/credentials', 'EXISTING-AWS-SECRET')
    w.put('docs/readme.md', 'ORDINARY-DOC')
    fs.symlinkSync(path.join(w.home, '.aws'), path.join(w.home, 'aws-keys'))
    fs.symlinkSync('.config/app-settings', path.join(w.home, 'settings')) // relative
    fs.symlinkSync(path.join(w.home, '.config', 'later-app'), path.join(w.home, 'docs', 'later-link')) // leads to one made later
    fs.symlinkSync(path.join(w.home, 'docs'), path.join(w.home, '.docs-link'))
    const out = await live(
      w,
      catAll(
        [
          path.join(w.home, 'aws-keys/credentials'),
          path.join(w.home, 'settings/settings.json'),
          path.join(w.home, 'docs/later-link/token'),
          path.join(w.home, 'docs/late-link/credentials'),
          path.join(w.home, '.docs-link/readme.md'),
          path.join(w.home, 'docs/readme.md'),
        ],
        [path.join(w.home, 'aws-keys/')],
      ),
      () => {
        w.put('.config/later-app/token', 'LATE-APP-SECRET')
        fs.symlinkSync(path.join(w.home, '.aws'), path.join(w.home, 'docs', 'late-link'))
      },
    )
    for (const text of ['EXISTING-AWS-SECRET', 'EXISTING-APP-SETTINGS', 'LATE-APP-SECRET']) expect(out).not.toContain(text)
    expect(out).toContain(`NO ${path.join(w.home, '.docs-link/readme.md')}`)
    expect(out).toContain(`ORDINARY-DOC`) // through docs/ itself
    expect(out).toContain(`NO ${path.join(w.home, 'docs/late-link/credentials')}`)
  })

  it('a hidden folder made by a rename while the server runs is out of sight: from a temp name, from an ordinary folder of a subfolder', async () => {
    const w = world()
    w.put('docs/staging/credentials', 'STAGED-SECRET')
    const out = await live(
      w,
      catAll(
        [path.join(w.home, '.aws/credentials'), path.join(w.home, '.gcloud/credentials'), path.join(w.home, 'docs/staging/credentials')],
        [path.join(w.home, 'docs')],
      ),
      () => {
        w.put('.aws.tmp-123/credentials', 'RENAMED-AWS-SECRET')
        fs.renameSync(path.join(w.home, '.aws.tmp-123'), path.join(w.home, '.aws'))
        fs.renameSync(path.join(w.home, 'docs/staging'), path.join(w.home, '.gcloud'))
      },
    )
    expect(out).not.toContain('RENAMED-AWS-SECRET')
    expect(out).not.toContain('STAGED-SECRET') // gone from docs/ (seen live), and not at its new name
    expect(out).toContain(`NO ${path.join(w.home, '.aws/credentials')}`)
    expect(out).toContain(`NO ${path.join(w.home, '.gcloud/credentials')}`)
  })

  it('a grant inside a hidden folder shows just that path; a grant of a whole hidden folder still hides the listed credentials in it, also ones made later', async () => {
    const w = world()
    w.put('.config/myapp/config.toml', 'GRANTED-APP-CONFIG')
    w.put('.config/otherapp/token', 'OTHER-APP-SECRET')
    w.put('.aws/config', '[default] region = GRANTED-REGION')
    w.put('.aws/credentials', 'AWS-SECRET')
    const inside = await live(
      w,
      catAll(
        ['.config/myapp/config.toml', '.config/otherapp/token', '.config/later/token', '.aws/config', '.aws/credentials'].map((r) => path.join(w.home, r)),
        [path.join(w.home, '.config')],
      ),
      () => w.put('.config/later/token', 'LATE-SECRET'),
      { sandbox: { fs_read: ['~/.config/myapp', '~/.aws/config'] } },
    )
    expect(inside).toContain('GRANTED-APP-CONFIG')
    expect(inside).toContain('GRANTED-REGION')
    for (const text of ['OTHER-APP-SECRET', 'AWS-SECRET', 'LATE-SECRET']) expect(inside).not.toContain(text)
    expect(inside).toMatch(new RegExp(`LS ${w.home}/.config: myapp \\n`))

    const whole = await live(
      w,
      catAll(['.config/otherapp/token', '.config/gh/hosts.yml', '.config/gcloud/credentials.db'].map((r) => path.join(w.home, r))),
      () => {
        w.put('.config/gh/hosts.yml', 'LATE-GH-TOKEN')
        w.put('.config/gcloud.tmp/credentials.db', 'RENAMED-GCLOUD-SECRET')
        fs.renameSync(path.join(w.home, '.config/gcloud.tmp'), path.join(w.home, '.config/gcloud'))
      },
      { sandbox: { fs_read: ['~/.config'] } },
    )
    expect(whole).toContain('OTHER-APP-SECRET') // granted
    expect(whole).not.toContain('LATE-GH-TOKEN')
    expect(whole).not.toContain('RENAMED-GCLOUD-SECRET')
  })

  it('case and look-alike names: every name that starts with a dot is hidden, whatever follows (.AWS, .Ssh, a Cyrillic а)', async () => {
    const w = world()
    w.put('.AWS/credentials', 'UPPER-AWS-SECRET')
    const names = ['.AWS/credentials', '.Ssh/id_rsa', '.\u0430ws/credentials', '.SSH/id_rsa']
    const out = await live(w, catAll(names.map((r) => path.join(w.home, r))), () => {
      w.put('.Ssh/id_rsa', 'LATE-SSH-SECRET')
      w.put('.\u0430ws/credentials', 'CYRILLIC-AWS-SECRET')
      w.put('.SSH/id_rsa', 'UPPER-SSH-SECRET')
    })
    for (const text of ['UPPER-AWS-SECRET', 'LATE-SSH-SECRET', 'CYRILLIC-AWS-SECRET', 'UPPER-SSH-SECRET']) expect(out).not.toContain(text)
  })

  it('inside a granted hidden folder, a listed credentials folder is left out in any case and width (a case-insensitive filesystem: .config/GH is .config/gh)', async () => {
    const w = world()
    w.put('.config/GH/hosts.yml', 'UPPER-GH-TOKEN')
    w.put('.config/\uff47\uff48/hosts.yml', 'FULLWIDTH-GH-TOKEN')
    w.put('.config/GCloud/credentials.db', 'MIXED-GCLOUD-SECRET')
    w.put('.config/ghost/settings', 'GHOST-SETTINGS')
    const out = await live(
      w,
      catAll(
        ['.config/GH/hosts.yml', '.config/\uff47\uff48/hosts.yml', '.config/GCloud/credentials.db', '.config/ghost/settings'].map((r) => path.join(w.home, r)),
      ),
      () => undefined,
      { sandbox: { fs_read: ['~/.config'] } },
    )
    for (const text of ['UPPER-GH-TOKEN', 'FULLWIDTH-GH-TOKEN', 'MIXED-GCLOUD-SECRET']) expect(out).not.toContain(text)
    expect(out).toContain('GHOST-SETTINGS') // a name that merely begins the same way
  })
})

describe('what a server needs of the hidden entries: its toolchain and its own program', () => {
  const script = (w: ProbeWorld, rel: string, body: string, mode = 0o755): void => {
    w.put(rel, `#!/bin/sh\n${body}\n`)
    fs.chmodSync(path.join(w.home, rel), mode)
  }

  it("a PATH folder in a hidden entry shows that entry (nvm's node, a volta link), ~/.local/bin with uv's tools; the rest of ~/.local and a PATH folder in a listed folder stay hidden", async () => {
    const w = world()
    // nvm: bin/tool is a link into lib/, the way npx is
    script(w, '.nvm/versions/node/v20/lib/node_modules/tool/cli.sh', 'echo "NVM TOOL RAN $(cat "$(dirname "$(readlink -f "$0")")/data.txt")"')
    w.put('.nvm/versions/node/v20/lib/node_modules/tool/data.txt', 'NVM-DATA')
    fs.mkdirSync(path.join(w.home, '.nvm/versions/node/v20/bin'))
    fs.symlinkSync('../lib/node_modules/tool/cli.sh', path.join(w.home, '.nvm/versions/node/v20/bin/nvmtool'))
    // uv: ~/.local/bin/x is a link into ~/.local/share/uv/tools
    script(w, '.local/share/uv/tools/mcp-x/bin/mcp-x', 'echo UV TOOL RAN')
    fs.mkdirSync(path.join(w.home, '.local/bin'))
    fs.symlinkSync('../share/uv/tools/mcp-x/bin/mcp-x', path.join(w.home, '.local/bin/mcp-x'))
    w.put('.local/share/keyrings/login.keyring', 'KEYRING-SECRET')
    // volta, its folder elsewhere behind a link in the home
    const volta = path.join(w.root, 'volta-real')
    fs.mkdirSync(path.join(volta, 'bin'), { recursive: true })
    fs.writeFileSync(path.join(volta, 'bin', 'voltatool'), '#!/bin/sh\necho VOLTA TOOL RAN\n', { mode: 0o755 })
    fs.symlinkSync(volta, path.join(w.home, '.volta'))
    // a PATH folder inside a listed credentials folder shows nothing
    script(w, '.aws/bin/awstool', 'echo AWS TOOL RAN')
    w.put('.aws/credentials', 'AWS-SECRET')
    const saved = process.env.PATH
    const toolchain = ['.nvm/versions/node/v20/bin', '.local/bin', '.volta/bin', '.aws/bin'].map((r) => path.join(w.home, r))
    process.env.PATH = [...toolchain, saved].join(path.delimiter)
    let out: string
    try {
      out = await live(
        w,
        `nvmtool; mcp-x; voltatool; awstool; ${catAll([path.join(w.home, '.local/share/keyrings/login.keyring'), path.join(w.home, '.local/share/recently-used.xbel'), path.join(w.home, '.aws/credentials')])}`,
        () => undefined,
      )
    } finally {
      process.env.PATH = saved
    }
    expect(out).toContain('NVM TOOL RAN NVM-DATA')
    expect(out).toContain('UV TOOL RAN')
    expect(out).toContain('VOLTA TOOL RAN')
    expect(out).not.toContain('AWS TOOL RAN')
    for (const text of ['KEYRING-SECRET', 'EXISTING-LOCAL-SHARE', 'AWS-SECRET']) expect(out).not.toContain(text)
  })

  it("the program's own folder in a hidden entry is shown (read-only), not its neighbours", async () => {
    const w = world()
    script(w, '.myserver/bin/server', 'cat "$(dirname "$0")/../share/data.txt"; echo; exec /bin/sh "$@"')
    w.put('.myserver/share/data.txt', 'OWN-PROGRAM-DATA')
    w.put('.other/secret', 'NEIGHBOUR-SECRET')
    const out = await live(w, `${catAll([path.join(w.home, '.other/secret')])}; echo x > ${w.home}/.myserver/x && echo WROTE-OWN`, () => undefined, {
      command: path.join(w.home, '.myserver/bin/server'),
    })
    expect(out).toContain('OWN-PROGRAM-DATA')
    expect(out).not.toContain('NEIGHBOUR-SECRET')
    expect(out).not.toContain('WROTE-OWN')
  })

  it('a program deep in a hidden entry (a command an agent could name) shows its own folder, not the whole entry', async () => {
    const w = world()
    script(w, '.vscode/extensions/ext-1/bin/tool', 'cat "$(dirname "$0")/../package.json"; echo; exec /bin/sh "$@"')
    w.put('.vscode/extensions/ext-1/package.json', 'EXT-1-PACKAGE')
    w.put('.vscode/extensions/ext-2/state.json', 'OTHER-EXTENSION-STATE')
    w.put('.vscode/argv.json', 'VSCODE-ARGV')
    const out = await live(w, catAll(['.vscode/extensions/ext-2/state.json', '.vscode/argv.json'].map((r) => path.join(w.home, r))), () => undefined, {
      command: path.join(w.home, '.vscode/extensions/ext-1/bin/tool'),
    })
    expect(out).toContain('EXT-1-PACKAGE')
    expect(out).not.toContain('OTHER-EXTENSION-STATE')
    expect(out).not.toContain('VSCODE-ARGV')
  })
})
