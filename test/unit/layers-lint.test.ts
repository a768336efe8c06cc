// The layer rules of eslint.config.mjs fail the build: a small offending file placed in each
// layer (linted through ESLint's API as that path, next to the real files it imports) must be
// reported, and the same import from an allowed layer must pass.
import { describe, expect, it } from 'vitest'
import { ESLint } from 'eslint'

const eslint = new ESLint({ cwd: process.cwd() })

async function lint(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code + '\n', { filePath: file })
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`)
}

const offending: Array<[string, string, string, RegExp]> = [
  ['renderer imports a Node built-in', 'src/renderer/x.ts', "import fs from 'node:fs'", /origin "core".*node:fs/],
  ['renderer imports a Node built-in without node:', 'src/renderer/components/X.tsx', "import path from 'path'", /origin "core".*path/],
  ['renderer imports electron', 'src/renderer/x.ts', "import { ipcRenderer } from 'electron'", /"electron".*not allowed in elements of type "renderer"/],
  ['renderer imports the core', 'src/renderer/store/x.ts', "import { startCore } from '../../main/core/core'", /"renderer" to elements of type "core"/],
  ['renderer imports the preload', 'src/renderer/api/x.ts', "import type { X } from '../../preload/index'", /"renderer" to elements of type "preload"/],
  ['renderer re-exports the cli', 'src/renderer/x.ts', "export { fail } from '../main/cli/errors'", /"renderer" to elements of type "cli"/],
  ['renderer loads a built-in dynamically', 'src/renderer/x.ts', "export const m = import('node:os')", /node:os/],
  ['core imports electron', 'src/main/core/x.ts', "import { app } from 'electron'", /electron.*not allowed in elements of type "core"/],
  ['core imports the cli', 'src/main/core/http/x.ts', "import { fail } from '../../cli/errors'", /"core" to elements of type "cli"/],
  ['core imports the renderer', 'src/main/core/x.ts', "import { App } from '../../renderer/components/App'", /"core" to elements of type "renderer"/],
  ['core imports the electron glue', 'src/main/core/x.ts', "import { runApp } from '../electron/app'", /"core" to elements of type "electron"/],
  ['shared imports the core', 'src/shared/x.ts', "import { startCore } from '../main/core/core'", /"shared" to elements of type "core"/],
  ['shared imports the renderer', 'src/shared/x.ts', "import { App } from '../renderer/components/App'", /"shared" to elements of type "renderer"/],
  ['shared imports a Node built-in', 'src/shared/x.ts', "import { createHash } from 'node:crypto'", /origin "core".*node:crypto/],
  ['electron glue imports the preload', 'src/main/electron/x.ts', "import '../../preload/index'", /"electron" to elements of type "preload"/],
  ['cli imports the electron glue', 'src/main/cli/x.ts', "import { runApp } from '../electron/app'", /"cli" to elements of type "electron"/],
  ['a file outside every layer', 'src/misc/x.ts', 'export const x = 1', /boundaries\/no-unknown-files/],
]

const allowed: Array<[string, string, string]> = [
  ['renderer imports shared', 'src/renderer/x.ts', "import { ApiError } from '../shared/api'"],
  ['renderer imports its own files and packages', 'src/renderer/components/X.tsx', "import { App } from './App'\nimport { create } from 'zustand'"],
  ['core imports shared and Node', 'src/main/core/x.ts', "import fs from 'node:fs'\nimport { ApiError } from '../../shared/api'"],
  ['shared imports zod and shared', 'src/shared/x.ts', "import { z } from 'zod'\nimport { ApiError } from './api'"],
  [
    'electron glue imports electron, core and shared',
    'src/main/electron/x.ts',
    "import { app } from 'electron'\nimport { startCore } from '../core/core'\nimport { API_OPS } from '../../shared/ipc'",
  ],
  ['the preload imports electron and shared', 'src/preload/x.ts', "import { contextBridge } from 'electron'\nimport { API_OPS } from '../shared/ipc'"],
]

describe('layer boundaries (eslint.config.mjs)', () => {
  for (const [what, file, code, expected] of offending) {
    it(`fails when ${what}`, async () => {
      const messages = await lint(file, code)
      expect(messages.join('\n')).toMatch(expected)
    })
  }
  for (const [what, file, code] of allowed) {
    it(`passes when ${what}`, async () => {
      expect(await lint(file, code)).toEqual([])
    })
  }
})
