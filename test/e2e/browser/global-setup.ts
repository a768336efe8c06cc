// Before any browser test: the build and Debian's Chromium must be there (no browser is downloaded on this machine or in CI).
import fs from 'node:fs'
import path from 'node:path'
import { root } from './fixtures'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export default function globalSetup(): void {
  for (const f of ['out/main/cli.js', 'out/renderer/index.html'])
    if (!fs.existsSync(path.join(root, f))) throw new Error(`the build is missing (${f}): run \`npm run build\` first`)
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`)
  fs.mkdirSync(path.join(root, 'docs', 'screenshots'), { recursive: true })
}
