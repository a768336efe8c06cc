#!/usr/bin/env node
// `npm run dev:web`: the renderer with hot reload on http://localhost:5173, talking to a running
// `toolgate serve` (TOOLGATE_URL, default http://127.0.0.1:8719) through the dev server's /api
// proxy; open http://localhost:5173/#key=<api key>. For machines without the Electron binary:
// electron-vite starts a stand-in instead of Electron (STACK-NOTES: ELECTRON_EXEC_PATH).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const standIn = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-dev-')), 'electron-stand-in.sh')
fs.writeFileSync(standIn, '#!/bin/sh\nexec sleep 2147483647\n', { mode: 0o755 })
const bin = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'electron-vite.cmd' : 'electron-vite')
const child = spawn(bin, ['dev', '--rendererOnly', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ELECTRON_EXEC_PATH: standIn, TOOLGATE_DEV_PROXY: process.env.TOOLGATE_URL ?? 'http://127.0.0.1:8719' },
})
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code) => {
  fs.rmSync(path.dirname(standIn), { recursive: true, force: true })
  process.exit(code ?? 0)
})
