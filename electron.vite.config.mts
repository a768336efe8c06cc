import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

const r = (p: string) => resolve(import.meta.dirname, p)

export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: { index: r('src/main/index.ts'), cli: r('src/main/cli/index.ts'), core: r('src/main/core/index.ts') },
      },
    },
  },
  preload: {
    build: {
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
    plugins: [react()],
  },
})
