// The type check is split like the electron-vite template: tsconfig.web.json (renderer + shared)
// has the DOM and no Node types, tsconfig.node.json (main, preload, cli, core) has Node and no
// DOM. A probe file placed in each layer (a virtual file, through the compiler API with the
// project's own config) must fail where it reaches for the other environment.
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = process.cwd()

/** Type-checks `code` as if it were the file `rel`, with the options of `configFile`; returns the messages of that file. */
function check(configFile: string, rel: string, code: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(root, configFile),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(String(d.messageText))
      },
    },
  )
  if (!parsed) throw new Error(`cannot read ${configFile}`)
  const file = path.join(root, rel)
  const host = ts.createCompilerHost(parsed.options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, lang, ...rest) => (path.resolve(name) === file ? ts.createSourceFile(name, code, lang) : getSourceFile(name, lang, ...rest))
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name)
  // the probe plus the project's own declaration files (e.g. src/renderer/env.d.ts)
  const rootNames = [file, ...parsed.fileNames.filter((f) => f.endsWith('.d.ts'))]
  const program = ts.createProgram({ rootNames, options: parsed.options, host })
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}

describe('split type check', () => {
  it('the renderer cannot use Node types (process, Buffer, require)', () => {
    const messages = check(
      'tsconfig.web.json',
      'src/renderer/probe.ts',
      'export const a = process.platform\nexport const b = Buffer.from("x")\nexport const c = require("fs")\n',
    )
    expect(messages.join('\n')).toMatch(/Cannot find name 'process'/)
    expect(messages.join('\n')).toMatch(/Cannot find name 'Buffer'/)
    expect(messages.join('\n')).toMatch(/Cannot find name 'require'/)
  })

  it('shared code cannot use Node types either (it is checked with the renderer)', () => {
    const messages = check('tsconfig.web.json', 'src/shared/probe.ts', 'export const a = process.env.HOME\n')
    expect(messages.join('\n')).toMatch(/Cannot find name 'process'/)
  })

  it('the renderer has the DOM', () => {
    expect(
      check('tsconfig.web.json', 'src/renderer/probe.ts', 'export const el = document.createElement("div")\nexport const key = window.toolgate\n'),
    ).toEqual([])
  })

  it('main-process code has Node types and no DOM', () => {
    expect(check('tsconfig.node.json', 'src/main/core/probe.ts', 'export const a = process.platform\nexport const b = Buffer.from("x")\n')).toEqual([])
    expect(check('tsconfig.node.json', 'src/main/core/probe.ts', 'export const el = document.body\n').join('\n')).toMatch(/Cannot find name 'document'/)
  })
})
