// The layer rules of eslint.config.mjs fail the build: a small offending file placed in each
// layer or floor of the core (linted through ESLint's API as that path, next to the real files it
// imports) must be reported, and the same import from an allowed place must pass. The floors of the
// core, the packages of each layer and the import cycles are checked the same way.
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
  ['renderer imports electron', 'src/renderer/x.ts', "import { ipcRenderer } from 'electron'", /"renderer" to .*module source "electron"/],
  [
    'renderer imports the core',
    'src/renderer/store/x.ts',
    "import { startCore } from '../../main/core/core'",
    /"renderer" to elements of type "core\/composition\/core"/,
  ],
  ['renderer imports the preload', 'src/renderer/api/x.ts', "import type { X } from '../../preload/index'", /"renderer" to elements of type "preload"/],
  ['renderer re-exports the cli', 'src/renderer/x.ts', "export { fail } from '../main/cli/errors'", /"renderer" to elements of type "cli"/],
  ['renderer loads a built-in dynamically', 'src/renderer/x.ts', "export const m = import('node:os')", /node:os/],
  ['core imports electron', 'src/main/core/control/x.ts', "import { app } from 'electron'", /"core\/surfaces\/control" to .*"electron"/],
  ['core imports the cli', 'src/main/core/http/x.ts', "import { fail } from '../../cli/errors'", /"core\/surfaces\/http" to elements of type "cli"/],
  [
    'core imports the renderer',
    'src/main/core/core.ts',
    "import { App } from '../../renderer/components/App'",
    /"core\/composition\/core" to elements of type "renderer"/,
  ],
  [
    'core imports the electron glue',
    'src/main/core/core.ts',
    "import { runApp } from '../electron/app'",
    /"core\/composition\/core" to elements of type "electron"/,
  ],
  ['shared imports the core', 'src/shared/x.ts', "import { startCore } from '../main/core/core'", /"shared" to elements of type "core\/composition\/core"/],
  ['shared imports the renderer', 'src/shared/x.ts', "import { App } from '../renderer/components/App'", /"shared" to elements of type "renderer"/],
  ['shared imports a Node built-in', 'src/shared/x.ts', "import { createHash } from 'node:crypto'", /origin "core".*node:crypto/],
  ['electron glue imports the preload', 'src/main/electron/x.ts', "import '../../preload/index'", /"electron" to elements of type "preload"/],
  ['cli imports the electron glue', 'src/main/cli/x.ts', "import { runApp } from '../electron/app'", /"cli" to elements of type "electron"/],
  ['a file outside every layer', 'src/misc/x.ts', 'export const x = 1', /boundaries\/no-unknown-files/],
  // the floors of the core (CORE_FLOORS): only down, or to a folder listed before on the same floor
  [
    "the catalog imports the agents' MCP server",
    'src/main/core/catalog/x.ts',
    "import { createMcpServer } from '../agent-server/mcp-server'",
    /"core\/model\/catalog" to elements of type "core\/surfaces\/agent-server"/,
  ],
  [
    'the state imports the catalog (same floor, listed after it)',
    'src/main/core/state/x.ts',
    "import type { Catalog } from '../catalog/catalog'",
    /"core\/model\/state" to elements of type "core\/model\/catalog"/,
  ],
  [
    'the search index imports the catalog',
    'src/main/core/search/x.ts',
    "import type { Catalog } from '../catalog/catalog'",
    /"core\/base\/search" to elements of type "core\/model\/catalog"/,
  ],
  [
    'a top-level file of the base imports the model',
    'src/main/core/log.ts',
    "import { Catalog } from './catalog/catalog'\nexport const c = Catalog",
    /"core\/base\/log" to elements of type "core\/model\/catalog"/,
  ],
  [
    'upstream imports the access decision',
    'src/main/core/upstream/x.ts',
    "import { decideAccess } from '../access/decide'",
    /"core\/runtime\/upstream" to elements of type "core\/policy\/access"/,
  ],
  [
    "the control service is imported by the agents' server",
    'src/main/core/agent-server/x.ts',
    "import { ControlService } from '../control/service'",
    /"core\/surfaces\/agent-server" to elements of type "core\/surfaces\/control"/,
  ],
  ['a folder of the core on no floor', 'src/main/core/newthing/x.ts', 'export const x = 1', /stands on no floor: add its folder to CORE_FLOORS/],
  ['a top-level file of the core on no floor', 'src/main/core/x.ts', 'export const x = 1', /stands on no floor/],
  // the packages of each layer and floor
  ['shared imports write-file-atomic', 'src/shared/x.ts', "import writeFileAtomic from 'write-file-atomic'", /"shared" to .*module source "write-file-atomic"/],
  [
    "the renderer imports the SDK's stdio client",
    'src/renderer/x.ts',
    "import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'",
    /"renderer" to .*"@modelcontextprotocol\/client"/,
  ],
  ['the renderer imports a Node-only package', 'src/renderer/x.ts', "import pino from 'pino'", /"renderer" to .*"pino"/],
  [
    'the search index imports the MCP SDK',
    'src/main/core/search/x.ts',
    "import { Client } from '@modelcontextprotocol/client'",
    /"core\/base\/search" to .*"@modelcontextprotocol\/client"/,
  ],
  [
    'the access decision imports write-file-atomic',
    'src/main/core/access/x.ts',
    "import writeFileAtomic from 'write-file-atomic'",
    /"core\/policy\/access" to .*"write-file-atomic"/,
  ],
  // an import cycle between files: decisions.ts imports facts.ts, which may not import it back
  [
    'two files import each other',
    'src/main/core/catalog/facts.ts',
    "import { approveTool } from './decisions'\nexport const f = approveTool",
    /import\/no-cycle: Dependency cycle/,
  ],
]

const allowed: Array<[string, string, string]> = [
  ['renderer imports shared', 'src/renderer/x.ts', "import { ApiError } from '../shared/api'"],
  ['renderer imports its own files and packages', 'src/renderer/components/X.tsx', "import { App } from './App'\nimport { create } from 'zustand'"],
  ['core imports shared and Node', 'src/main/core/log.ts', "import fs from 'node:fs'\nimport { ApiError } from '../../shared/api'"],
  [
    'a floor imports the floors below it',
    'src/main/core/agent-server/x.ts',
    "import { Catalog } from '../catalog/catalog'\nimport { decideAccess } from '../access/decide'\nimport { resolveDataDir } from '../paths'",
  ],
  [
    'a folder imports one listed before it on its floor',
    'src/main/core/catalog/x.ts',
    "import { StateStore } from '../state/store'\nimport { loadConfigFile } from '../config/load'",
  ],
  [
    'a floor imports its packages',
    'src/main/core/upstream/x.ts',
    "import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'\nimport { z } from 'zod'",
  ],
  [
    'a type import back is no cycle',
    'src/main/core/catalog/facts.ts',
    "import type { CONFIG_LOCK_MESSAGE } from './decisions'\nexport type T = typeof CONFIG_LOCK_MESSAGE",
  ],
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
