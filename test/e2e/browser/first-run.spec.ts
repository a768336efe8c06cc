// The web UI on a fresh install: the key page (missing, refused, pasted) and the getting-started view of an empty config.
import { expect, KEY, test, type Serve } from './fixtures'
import { shot } from './page-checks'

let serve: Serve

test.beforeAll(async ({ toolgate }) => {
  serve = await toolgate.start({ mcpServers: {} })
})

test('without a key the web UI says which URL to open', async ({ page }) => {
  await page.goto(`${serve.base}/`)
  await expect(page.getByRole('heading', { name: 'Open the link that toolgate serve printed' })).toBeVisible()
  await shot(page, 'key-missing.png')
})

test('the key page takes a pasted key: a wrong one is refused, the printed URL works', async ({ page }) => {
  const pageErrors: string[] = []
  page.on('pageerror', (e) => pageErrors.push(e.message))
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text())
  })
  await page.goto(`${serve.base}/`)
  await page.getByLabel('API key').fill('not-the-key')
  await page.getByRole('button', { name: 'Use this key' }).click()
  await expect(page.getByRole('heading', { name: 'The API key was not accepted' })).toBeVisible()
  await shot(page, 'key-refused.png')
  await page.getByLabel('API key').fill(`${serve.base}/#key=${KEY}`)
  await page.getByRole('button', { name: 'Use this key' }).click()
  // the window loaded with the key: it names the config file the control API reported
  await expect(page.getByRole('heading', { name: 'No MCP servers yet' })).toBeVisible()
  await expect(page.locator('main')).toContainText(serve.configFile)
  expect(new URL(page.url()).hash, 'the pasted key is not left in the address bar').toBe('')
  // the refused key was answered 401, which Chromium logs; nothing else may have been logged
  expect(pageErrors.filter((e) => !/status of 401/.test(e))).toEqual([])
})

test('an empty install explains the config file and how to connect an agent', async ({ page }) => {
  await page.goto(`${serve.base}/#key=${KEY}`)
  await expect(page.getByRole('heading', { name: 'No MCP servers yet' })).toBeVisible()
  const text = (await page.locator('main').textContent()) ?? ''
  expect(text, 'names the config file').toContain(serve.configFile)
  expect(text).toContain('toolgate connect claude-desktop --write')
  await shot(page, 'getting-started.png')
})
