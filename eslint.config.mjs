// The layers of DESIGN.md, checked by the build (npm run lint): an import may only point down.
// shared ← main/core ← (main/cli, main/electron); the renderer sees only shared; no layer but the
// preload imports the preload. Node built-ins stay out of shared and the renderer.
import tsParser from '@typescript-eslint/parser'
import boundaries from 'eslint-plugin-boundaries'

const layer = (type, pattern) => ({ type, pattern })
const local = (...types) => ({ to: { element: { types: { anyOf: types } } } })
const anyExternal = { to: { module: { origin: 'external' } } }
const nodeBuiltins = { to: { module: { origin: 'core' } } }
const electronModule = { to: { module: { origin: 'external', source: 'electron' } } }

export default [
  { ignores: ['out/**', 'node_modules/**', 'test/**', 'bench/**', 'bin/**', '*.mts', '*.mjs'] },
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { parser: tsParser, parserOptions: { ecmaFeatures: { jsx: true } } },
    plugins: { boundaries },
    settings: {
      'boundaries/elements': [
        layer('shared', 'src/shared'),
        layer('core', 'src/main/core'),
        layer('cli', 'src/main/cli'),
        layer('electron', 'src/main/electron'),
        layer('preload', 'src/preload'),
        layer('renderer', 'src/renderer'),
        // what is left in src/main: the Electron entry (index.ts), which wires core to electron
        layer('main-entry', 'src/main'),
      ],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] } },
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
            { from: { element: { type: 'shared' } }, allow: [local('shared'), anyExternal] },
            { from: { element: { type: 'core' } }, allow: [local('shared', 'core'), anyExternal, nodeBuiltins], disallow: [electronModule] },
            { from: { element: { type: 'cli' } }, allow: [local('shared', 'core', 'cli'), anyExternal, nodeBuiltins], disallow: [electronModule] },
            { from: { element: { type: 'electron' } }, allow: [local('shared', 'core', 'electron'), anyExternal, nodeBuiltins] },
            { from: { element: { type: 'main-entry' } }, allow: [local('core', 'electron'), anyExternal] },
            { from: { element: { type: 'preload' } }, allow: [local('shared', 'preload'), electronModule] },
            { from: { element: { type: 'renderer' } }, allow: [local('shared', 'renderer'), anyExternal], disallow: [electronModule] },
          ],
        },
      ],
    },
  },
]
