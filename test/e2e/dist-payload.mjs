#!/usr/bin/env node
// What of `npm run dist` can be built without downloading Electron: electron-builder with the
// real config (electron-builder.yml) packs the app payload into linux-unpacked/resources/app.asar
// around a stand-in Electron binary. Checks the payload has the built app, the CLI launcher, the
// icons and runtime dependencies only. Needs `npm run build` first. Prints `N passed, M failed`.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import assert from 'node:assert/strict'
import { finish, root, step } from './e2e-lib.mjs'
import asar from '@electron/asar'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-dist-'))

try {
  const standIn = path.join(tmp, 'electron-dist')
  fs.mkdirSync(path.join(standIn, 'resources'), { recursive: true })
  fs.writeFileSync(path.join(standIn, 'electron'), '#!/bin/sh\necho "stand-in: the real Electron binary cannot be downloaded here"\n', { mode: 0o755 })
  const out = path.join(tmp, 'dist')
  const appAsar = path.join(out, 'linux-unpacked', 'resources', 'app.asar')

  await step('electron-builder packs the app payload with the real config (Linux dir target, stand-in Electron)', () => {
    execFileSync(
      path.join(root, 'node_modules', '.bin', 'electron-builder'),
      ['--linux', 'dir', '--publish', 'never', `-c.electronDist=${standIn}`, `-c.directories.output=${out}`],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000, env: { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false' } },
    )
    assert.ok(fs.existsSync(appAsar), 'app.asar was written')
    assert.ok(fs.existsSync(path.join(out, 'linux-unpacked', 'toolgate')), 'the executable is named toolgate')
    console.log(`# app.asar: ${(fs.statSync(appAsar).size / 1024 / 1024).toFixed(1)} MB`)
  })

  await step('the payload: built app, CLI launcher, icons, package.json main; runtime dependencies only', () => {
    const files = new Set(asar.listPackage(appAsar).map((f) => f.replace(/\\/g, '/')))
    for (const f of [
      '/out/main/index.js',
      '/out/main/cli.js',
      '/out/preload/index.js',
      '/out/renderer/index.html',
      '/bin/toolgate.js',
      '/resources/tray.png',
      '/resources/icon.png',
    ]) {
      assert.ok(files.has(f), `${f} is in app.asar`)
    }
    assert.ok(![...files].some((f) => /^\/(src|test|bench|docs)\//.test(f) || f.endsWith('.map')), 'no sources, tests or maps')
    const deps = new Set([...files].filter((f) => f.startsWith('/node_modules/')).map((f) => f.split('/')[2]))
    for (const d of ['@modelcontextprotocol', 'zod', 'pino', 'commander', 'write-file-atomic']) assert.ok(deps.has(d), `${d} is bundled`)
    for (const d of ['electron', 'vite', 'vitest', 'react', 'typescript', 'electron-builder', 'eslint']) assert.ok(!deps.has(d), `no ${d}`)
    const pkg = JSON.parse(asar.extractFile(appAsar, 'package.json').toString())
    assert.equal(pkg.main, 'out/main/index.js')
  })
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
finish()
