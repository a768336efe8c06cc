// ~/snap in another case or width (~/Snap, ~/SNAP, a full-width ｓｎａｐ) from inside a real bwrap
// sandbox: hidden like ~/snap. On a case-insensitive filesystem it is snap's own folder (and
// snapd uses a Snap that was there first), so its apps' data (a Firefox profile) must not show;
// on ext4 it is an ordinary folder, hidden all the same, and a grant shows it.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { catAll, probeWorld, runProbe, useProbeRoots, waitThen } from '../helpers/sandbox-probe'

const roots = useProbeRoots()

const SPELLINGS = ['Snap', 'SNAP', '\uff53\uff4e\uff41\uff50']

describe('~/snap in any case or width', () => {
  it('is out of sight, at the start and made while the server runs; ~/snapshots is seen', async () => {
    const w = probeWorld(roots)
    w.put('Snap/firefox/common/.mozilla/firefox/prefs.js', 'SNAP-CASE-PROFILE')
    w.put('snapshots/today.txt', 'ORDINARY-SNAPSHOT')
    const files = [...SPELLINGS.map((s) => path.join(w.home, s, 'firefox/common/.mozilla/firefox/prefs.js')), path.join(w.home, 'snapshots/today.txt')]
    const out = await runProbe(w, { command: '/bin/sh', args: ['-c', waitThen(w, catAll(files, [w.home]))] }, () => {
      for (const s of SPELLINGS.slice(1)) w.put(`${s}/firefox/common/.mozilla/firefox/prefs.js`, `LATE-${s}-PROFILE`)
    })
    expect(out).toContain('ORDINARY-SNAPSHOT')
    expect(out).not.toMatch(/PROFILE/)
    const listing = out.split('\n').find((l) => l.startsWith(`LS ${w.home}:`)) ?? ''
    expect(listing.split(': ')[1].trim().split(' ').sort()).toEqual(['.cache', '.npm', 'notes.txt', 'snapshots'])
  })

  it('a server that may write the home: covered where it lies', async () => {
    const w = probeWorld(roots)
    w.put('Snap/slack/common/token', 'SNAP-CASE-TOKEN')
    const out = await runProbe(w, {
      command: '/bin/sh',
      args: ['-c', waitThen(w, `${catAll([path.join(w.home, 'Snap/slack/common/token')])}; echo x > ${w.home}/written.txt && echo WROTE-HOME`)],
      sandbox: { fs_write: ['~'] },
    })
    expect(out).toContain('WROTE-HOME')
    expect(out).not.toContain('SNAP-CASE-TOKEN')
  })

  it('an ordinary ~/Snap (ext4) is shown when granted', async () => {
    const w = probeWorld(roots)
    w.put('Snap/photo.txt', 'GRANTED-SNAP-FOLDER')
    const out = await runProbe(w, {
      command: '/bin/sh',
      args: ['-c', waitThen(w, catAll([path.join(w.home, 'Snap/photo.txt')]))],
      sandbox: { fs_read: ['~/Snap'] },
    })
    expect(out).toContain('GRANTED-SNAP-FOLDER')
  })
})
