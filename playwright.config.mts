// The browser end-to-end tests (test/e2e/browser): the built web UI in Debian's Chromium against real `toolgate serve` processes.
import { defineConfig } from '@playwright/test'

export default defineConfig({
  testDir: 'test/e2e/browser',
  testMatch: '*.spec.ts',
  globalSetup: './test/e2e/browser/global-setup.ts',
  // one worker: the window story is serial anyway, and each worker runs its own servers and
  // Chromium, which on a shared 2-core machine turns waits into timeouts
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  outputDir: 'test-results/e2e-browser',
  reporter: [['list'], ['./test/e2e/browser/count-reporter.ts']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1180, height: 820 },
    actionTimeout: 10_000,
    // on a failure, a picture of every open page (the story's own page too) in test-results/
    screenshot: 'only-on-failure',
    launchOptions: {
      // Debian's Chromium (apt-get install chromium; .ci/run installs it): Playwright's own browsers are never downloaded
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
})
