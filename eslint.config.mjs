// The layers of docs/architecture.md, checked by the build (npm run lint): an import may only point down.
// shared ← main/core ← (main/cli, main/electron); the renderer sees only shared; no layer but the
// preload imports the preload. Node built-ins stay out of shared and the renderer. Inside the core,
// each folder (or top-level file) sits on a floor and may import only what CORE_FLOORS lists
// before it; no file may take part in an import cycle (import/no-cycle). Each layer and floor
// names the packages it may import.
import tsParser from '@typescript-eslint/parser'
import boundaries from 'eslint-plugin-boundaries'
import importPlugin from 'eslint-plugin-import'

/**
 * The core's floors, bottom first (docs/architecture.md "Floors of the core"). A unit (a folder
 * of src/main/core, or a top-level file, named without .ts) may import shared, the units listed
 * before it, its own files, and the packages of its floor. A new folder must be placed here.
 */
const CORE_FLOORS = [
  // knows nothing of servers, tools or decisions: where files live, logging, JSON files, masking text, the search index
  {
    floor: 'base',
    units: ['paths', 'log', 'version', 'json-file', 'covered-files', 'masking', 'search'],
    packages: ['pino', 'jsonc-parser', 'write-file-atomic', 'stemmer'],
  },
  // what is configured, decided and recorded, and the files that hold it
  { floor: 'model', units: ['config', 'secrets', 'state', 'clients', 'catalog', 'activity'], packages: ['write-file-atomic'] },
  // what runs: sign-ins, connections to upstream servers, their supervision
  { floor: 'runtime', units: ['oauth', 'upstream'], packages: ['@modelcontextprotocol/client', '@modelcontextprotocol/core', 'signal-exit'] },
  // who may do what: the access decision, grants, requests and confirmations, discovery
  { floor: 'policy', units: ['access', 'grants', 'requests', 'discovery'], packages: [] },
  // what agents and people see: the MCP server for agents, the control service, the HTTP listener
  {
    floor: 'surfaces',
    units: ['views', 'agent-server', 'agents-view', 'control', 'http'],
    packages: [
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/core',
      { source: '@modelcontextprotocol/client', internalPath: 'validators/**' },
      'gpt-tokenizer',
    ],
  },
  // the parts of the composition (composition/: what a core is, its live config, what requests record),
  // what builds and starts the whole (core.ts) and the core's public surface (index.ts)
  { floor: 'composition', units: ['composition', 'core', 'index'], packages: [] },
]
const TOP_LEVEL_FILES = new Set(['paths', 'log', 'version', 'json-file', 'covered-files', 'core', 'index'])

const coreType = (floor, unit) => `core/${floor}/${unit}`
const coreUnits = CORE_FLOORS.flatMap(({ floor, units }) => units.map((unit) => ({ floor, unit, type: coreType(floor, unit) })))
const CORE_TYPES = coreUnits.map((u) => u.type)

const layer = (type, pattern, mode) => ({ type, pattern, ...(mode ? { mode } : {}) })
const local = (...types) => ({ to: { element: { types: { anyOf: types } } } })
const packages = (...names) => names.map((n) => ({ to: { module: { origin: 'external', ...(typeof n === 'string' ? { source: n } : n) } } }))
const nodeBuiltins = { to: { module: { origin: 'core' } } }
const electronModule = { to: { module: { origin: 'external', source: 'electron' } } }
// zod validates at every boundary: every layer but the preload may use it
const ZOD = 'zod'

// a top-level file is an element of its own: mode 'file' (deprecated in boundaries 7, which classifies
// single files otherwise only as file categories; kept while the plugin is pinned at 7.2.0)
const coreElements = coreUnits.map(({ unit, type }) =>
  TOP_LEVEL_FILES.has(unit) ? layer(type, `src/main/core/${unit}.ts`, 'file') : layer(type, `src/main/core/${unit}`),
)
const corePolicies = coreUnits.map(({ floor, type }, i) => ({
  from: { element: { type } },
  allow: [local('shared', ...CORE_TYPES.slice(0, i + 1)), nodeBuiltins, ...packages(ZOD, ...CORE_FLOORS.find((f) => f.floor === floor).packages)],
}))

export default [
  { ignores: ['out/**', 'node_modules/**', 'test/**', 'bench/**', 'bin/**', '*.mts', '*.mjs'] },
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { parser: tsParser, parserOptions: { ecmaFeatures: { jsx: true } } },
    plugins: { boundaries, import: importPlugin },
    settings: {
      'boundaries/elements': [
        layer('shared', 'src/shared'),
        ...coreElements,
        layer('cli', 'src/main/cli'),
        layer('electron', 'src/main/electron'),
        layer('preload', 'src/preload'),
        layer('renderer', 'src/renderer'),
        // what is left in src/main: the Electron entry (index.ts), which wires core to electron
        layer('main-entry', 'src/main'),
      ],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] } },
      // eslint-plugin-import reads the imported files itself: with the TypeScript parser
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      'boundaries/no-unknown-files': 'error',
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          checkAllOrigins: true,
          checkUnknownLocals: true,
          policies: [
            { from: { element: { type: 'shared' } }, allow: [local('shared'), ...packages(ZOD, 'diff')] },
            ...corePolicies,
            {
              from: { element: { type: 'cli' } },
              allow: [local('shared', 'cli', ...CORE_TYPES), nodeBuiltins, ...packages(ZOD, 'commander', '@modelcontextprotocol/server')],
            },
            { from: { element: { type: 'electron' } }, allow: [local('shared', 'electron', ...CORE_TYPES), nodeBuiltins, electronModule] },
            { from: { element: { type: 'main-entry' } }, allow: [local('electron', ...CORE_TYPES)] },
            { from: { element: { type: 'preload' } }, allow: [local('shared', 'preload'), electronModule] },
            { from: { element: { type: 'renderer' } }, allow: [local('shared', 'renderer'), ...packages(ZOD, 'react', 'react-dom', 'zustand')] },
          ],
        },
      ],
      // a cycle of imports between files, in any layer; `import type` does not count (erased at build)
      'import/no-cycle': ['error', { ignoreExternal: true, disableScc: true }],
    },
  },
  {
    // a file of the core outside every unit of CORE_FLOORS stands on no floor: place its folder
    files: ['src/main/core/**/*.ts'],
    ignores: coreUnits.map(({ unit }) => (TOP_LEVEL_FILES.has(unit) ? `src/main/core/${unit}.ts` : `src/main/core/${unit}/**`)),
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'Program', message: 'This file of the core stands on no floor: add its folder to CORE_FLOORS in eslint.config.mjs (docs/architecture.md)' },
      ],
    },
  },
]
