import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import { sdkDedupe } from './scripts/sdk-dedupe.mjs'
import { sdkLazySchemas } from './scripts/sdk-lazy-schemas.mjs'
import { sdkLazyKeys } from './scripts/sdk-lazy-keys.mjs'
import { sdkFastGuards } from './scripts/sdk-fast-guards.mjs'
import { statementLines } from './scripts/statement-lines.mjs'

const r = (p: string) => resolve(import.meta.dirname, p)

export default defineConfig({
  main: {
    // the MCP SDK's client and server packages each ship the same ajv provider and the same
    // wire-schema builders: one copy of each, proven the same at every build (scripts/sdk-dedupe.mts)
    // and the SDK's schemas (core's neutral and OAuth ones, each era's wire set) are built on first
    // use, not at load (scripts/sdk-lazy-schemas.mts), nor are the elicitation tables read from them
    // (scripts/sdk-lazy-keys.mts); the SDK's JSON-RPC guards say "no" without a zod parse when a
    // member their schema requires is missing (scripts/sdk-fast-guards.mts); the chunks are printed
    // a statement a line (scripts/statement-lines.mts)
    plugins: [
      sdkDedupe(r('node_modules')),
      sdkLazySchemas(r('node_modules')),
      sdkLazyKeys(r('node_modules')),
      sdkFastGuards(r('node_modules')),
      statementLines(),
    ],
    build: {
      // Bundled into the main build instead of require()-d from node_modules: `stemmer` (ESM-only),
      // and what every start loads (docs/performance.md): zod (its CommonJS entry loads all 70
      // locale files; bundled, only `en` is kept), the MCP SDK packages, diff, jsonc-parser,
      // commander. One file to read and compile instead of ~160 resolved and wrapped one by one:
      // −15 % CPU until every server is callable, −3 MB heap at rest. pino (worker-thread
      // transports), chokidar, write-file-atomic, the keychain's native module, and what is
      // required on first use only (the tokenizer, jsonc-parser) stay external.
      externalizeDeps: {
        exclude: ['stemmer', 'zod', '@modelcontextprotocol/client', '@modelcontextprotocol/server', '@modelcontextprotocol/core', 'diff', 'commander'],
      },
      rollupOptions: {
        input: { index: r('src/main/index.ts'), cli: r('src/main/cli/index.ts'), core: r('src/main/core/index.ts') },
        // V8 keeps every loaded module's source in the heap, as UTF-16 when a single character in
        // it is not Latin-1 (a "→" in a comment is enough): comments out, other non-ASCII
        // characters escaped, whitespace out (then a line break put back after each statement by
        // statementLines, so an error's line is one statement), nothing renamed: stack traces name
        // their functions. 19.4 -> 15.9 MB heap at rest at 10 servers for the first two, −0.3 MB for
        // the whitespace (docs/performance.md).
        output: { comments: false, minify: { compress: false, mangle: false, codegen: { removeWhitespace: true, asciiOnly: true } } },
      },
    },
  },
  preload: {
    build: {
      // a sandboxed preload can require only electron: its whitelist comes from the table of
      // operations (shared/operations.ts, built with zod), so its dependencies are bundled in
      externalizeDeps: false,
      rollupOptions: {
        input: { index: r('src/preload/index.ts') },
        output: { format: 'cjs' },
      },
    },
  },
  renderer: {
    root: r('src/renderer'),
    build: {
      minify: true,
      rollupOptions: { input: { index: r('src/renderer/index.html') } },
    },
    // npm run dev:web: the control API of a running `toolgate serve`, same origin for the page
    server: process.env.TOOLGATE_DEV_PROXY
      ? {
          proxy: {
            '/api': {
              target: process.env.TOOLGATE_DEV_PROXY,
              changeOrigin: true,
              // the listener accepts only its own origin (DNS-rebinding defense); the proxy is that origin's stand-in
              headers: { origin: process.env.TOOLGATE_DEV_PROXY },
            },
          },
        }
      : undefined,
    // the dev server's React refresh preamble is an inline script and HMR talks over ws://: the
    // strict CSP meta tag is for built pages only (a test checks the built page carries it)
    plugins: [
      react(),
      {
        name: 'toolgate-dev-csp',
        apply: 'serve',
        transformIndexHtml: (html: string) => html.replace(/<meta\s+http-equiv="Content-Security-Policy"[^>]*>/, ''),
      },
    ],
  },
})
