// Servers' questions in the window (docs/passthrough.md#questions-asked-in-toolgate): an agent whose
// client cannot show elicitation calls a real server that asks (test/fixtures/servers/asker-server.mjs);
// the window shows the question labelled with the configured server, a form built from the schema
// that is checked before it is sent (an enum value "" apart from "no answer"), a URL question with
// its host; a sampling request (`sampling: "ask"`) as a card that shows the messages before Allow
// relays it; and the answer on the activity view with the names of the fields it filled.
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Locator, Page } from '@playwright/test'
import { expect, KEY, makeAgent, root, test, until, type Agent, type Serve } from './fixtures'
import { shot, shotOf } from './page-checks'

test.describe.configure({ mode: 'serial' })

const ASKER = path.join(root, 'test/fixtures/servers/asker-server.mjs')
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name', minLength: 2 },
    age: { type: 'integer', title: 'Age', minimum: 0 },
    color: {
      type: 'string',
      title: 'Colour',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    },
    ok: { type: 'boolean', title: 'Agree', default: true },
  },
  required: ['name', 'color'],
}

let serve: Serve
let agent: Agent
let page: Page
const pageErrors: string[] = []
const button = (scope: Locator, name: string) => scope.getByRole('button', { name, exact: true })

interface Q {
  id: string
  tool: string
}
const question = (tool: string) =>
  until(`a question of ${tool}`, async () => (await serve.api.get<{ questions: Q[] }>('/api/v1/questions')).questions.find((q) => q.tool === tool))

test.beforeAll(async ({ browser, toolgate }) => {
  serve = await toolgate.start({ mcpServers: { asker: { command: process.execPath, args: [ASKER, '--legacy'], quarantined: false, sampling: 'ask' } } })
  await until('asker to connect', async () => (await serve.api.server('asker'))?.state === 'connected', 30_000)
  agent = await makeAgent(serve.base)
  page = await (await browser.newContext()).newPage()
  page.on('pageerror', (e) => pageErrors.push(e.message))
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text())
  })
  await page.goto(`${serve.base}/#key=${KEY}`)
  await expect(page.locator('[data-server="asker"]')).toBeVisible()
})

test.afterAll(async () => {
  await agent?.close().catch(() => undefined)
  await page?.context().close()
})

test("a server's question: labelled with the configured server, the form checked before it is sent, the answer reaches the server", async () => {
  const pending = agent.callText('call_tool_read', {
    name: 'asker:ask_schema',
    args: { message: 'Toolgate asks: confirm your name', schema: JSON.stringify(SCHEMA) },
  })
  const q = await question('asker:ask_schema')
  const card = page.locator(`[data-question="${q.id}"]`)
  await expect(card.getByRole('heading')).toHaveText('The MCP server "asker" asks (this is the server\'s question, not Toolgate\'s)')
  // the server's words sit in their own box, never as the card's title
  await expect(card.locator('.question-message')).toHaveText('Toolgate asks: confirm your name')
  await expect(page.locator('.attention [data-attention]').first()).toHaveAttribute('data-attention', 'questions')
  await expect(card.getByLabel('Agree')).toBeChecked()
  await shotOf(page, page.locator('section.questions'), 'question.png', 'question-narrow.png')
  // what the form does not take is named in the window, and nothing is sent
  await button(card, 'Send to asker').click()
  await expect(card.getByRole('alert')).toContainText('"name" is required')
  await card.getByLabel(/Your name/).fill('A')
  await card.getByLabel(/Colour/).selectOption('Green')
  await button(card, 'Send to asker').click()
  await expect(card.getByRole('alert')).toContainText('"name" (Your name) must be at least 2 characters')
  expect((await serve.api.get<{ questions: Q[] }>('/api/v1/questions')).questions.map((x) => x.id)).toEqual([q.id])
  await card.getByLabel(/Your name/).fill('Ada')
  await card.getByLabel(/Age/).fill('36')
  await button(card, 'Send to asker').click()
  expect(await pending).toEqual({ isError: false, text: 'content: {"name":"Ada","age":36,"color":"g","ok":true}' })
  await expect(card).toHaveCount(0)
  await expect(page.locator('[data-attention="questions"]')).toHaveCount(0)
})

test("a server's enum values are shown as text, never markup, and the one the user picks reaches the server as it sent it", async () => {
  // an attacker's values: markup, an attribute breakout, a bidi override, an empty-looking choice
  const values = ['<img src=x onerror="window.__pwned=1">', '"><b id=injected>bold</b>', 'yes\u202egnp.exe', 'plain']
  const schema = {
    type: 'object',
    properties: {
      pick: { type: 'string', title: 'Pick <i id=injected-title>one</i>', enum: values },
      many: { type: 'array', title: 'Many', items: { type: 'string', enum: values } },
    },
    required: ['pick'],
  }
  const pending = agent.callText('call_tool_read', {
    name: 'asker:ask_schema',
    args: { message: '<script>window.__pwned=2</script> choose', schema: JSON.stringify(schema) },
  })
  const q = await question('asker:ask_schema')
  const card = page.locator(`[data-question="${q.id}"]`)
  await expect(card.locator('.question-message')).toHaveText('<script>window.__pwned=2</script> choose')
  const select = card.locator('[data-field="pick"] select')
  // each choice shows its value as text (the bidi override escaped, so it cannot reverse what is shown)
  await expect(select.locator('option')).toHaveText(['Choose…', values[0], values[1], 'yes\\u202egnp.exe', 'plain'])
  await expect(card.locator('[data-field="many"] label')).toHaveText([values[0], values[1], 'yes\\u202egnp.exe', 'plain'])
  await expect(card.locator('[data-field="pick"] label').first()).toContainText('Pick <i id=injected-title>one</i>')
  // no markup of the server's became an element, no script ran
  expect(await page.locator('#injected, #injected-title, [data-question] img, [data-question] script').count()).toBe(0)
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
  await select.selectOption({ label: values[0] })
  await card.locator('[data-field="many"] label').filter({ hasText: 'gnp.exe' }).locator('input').check()
  await card.locator('[data-field="many"] label').filter({ hasText: 'bold' }).locator('input').check()
  await button(card, 'Send to asker').click()
  // the server gets its own values back, byte for byte (the bidi character unescaped)
  const got = await pending
  expect(got.isError).toBe(false)
  expect(JSON.parse(got.text.replace(/^content: /, ''))).toEqual({ pick: values[0], many: [values[2], values[1]] })
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
})

test('an enum whose value is "" is a choice of its own, apart from "(no answer)"', async () => {
  const schema = {
    type: 'object',
    properties: {
      must: { type: 'string', title: 'Must', enum: ['', 'y'] },
      maybe: { type: 'string', title: 'Maybe', enum: ['', 'x'] },
    },
    required: ['must'],
  }
  // [the choice picked for "must", for "maybe" (0: no answer), what the server gets]
  const rounds: Array<[number, number, Record<string, string>]> = [
    [1, 0, { must: '' }],
    [2, 1, { must: 'y', maybe: '' }],
  ]
  for (const [mustPick, maybePick, want] of rounds) {
    const pending = agent.callText('call_tool_read', { name: 'asker:ask_schema', args: { message: 'pick', schema: JSON.stringify(schema) } })
    const q = await question('asker:ask_schema')
    const card = page.locator(`[data-question="${q.id}"]`)
    const must = card.locator('[data-field="must"] select')
    const maybe = card.locator('[data-field="maybe"] select')
    await expect(maybe.locator('option')).toHaveText(['(no answer)', '"" (the empty value)', 'x'])
    await expect(must.locator('option')).toHaveText(['Choose…', '"" (the empty value)', 'y'])
    // nothing is chosen for the user: both start unanswered
    await expect(must).toHaveValue('')
    await expect(maybe).toHaveValue('')
    await must.selectOption({ index: mustPick })
    await maybe.selectOption({ index: maybePick })
    await button(card, 'Send to asker').click()
    const got = await pending
    expect(got.isError).toBe(false)
    expect(JSON.parse(got.text.replace(/^content: /, ''))).toEqual(want)
    await expect(card).toHaveCount(0)
  }
})

test('the activity view names the fields an answer filled, as text, and never what was typed', async () => {
  // a hostile server names a field with markup; the user fills it and a password in the window
  const hostile = '<img src=x onerror="window.__pwned=4">'
  const schema = {
    type: 'object',
    properties: {
      [hostile]: { type: 'string', title: 'Note' },
      secret: { type: 'string', title: 'Password' },
      skipped: { type: 'string', title: 'Optional' },
    },
  }
  const pending = agent.callText('call_tool_read', { name: 'asker:ask_schema', args: { message: 'fill in', schema: JSON.stringify(schema) } })
  const q = await question('asker:ask_schema')
  const card = page.locator(`[data-question="${q.id}"]`)
  await card.getByLabel(/Note/).fill('hello')
  await card.getByLabel(/Password/).fill('typed-hunter2')
  await button(card, 'Send to asker').click()
  expect((await pending).isError).toBe(false)
  const record = await until('the answer on the activity record', async () =>
    (await serve.api.get<{ events: Array<{ id: string; question?: { id?: string } }> }>('/api/v1/activity?kind=decision')).events.find(
      (e) => e.question?.id === q.id,
    ),
  )
  await button(page.locator('nav'), 'Activity').click()
  const row = page.locator(`[data-activity="${record.id}"]`)
  await expect(row).toContainText(`fields ${hostile}, secret`)
  await button(row, `Details of record ${record.id}`).click()
  const drawer = page.getByRole('dialog', { name: `Activity record ${record.id}` })
  await expect(drawer.locator('[data-question-fields] li')).toHaveText([hostile, 'secret'])
  await expect(drawer).toContainText(`a form, asked in Toolgate (${q.id})`)
  await expect(drawer).not.toContainText('typed-hunter2')
  await expect(drawer).not.toContainText('skipped')
  await shot(page, 'activity-question.png')
  // the server's markup is text: no element of it, no script ran
  expect(await page.locator('img[src="x"]').count()).toBe(0)
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined()
  await button(drawer, 'Close').click()
  await button(page.locator('nav'), 'Servers').click()
})

test('a URL question shows the host of the page before anything opens; Decline tells the server', async () => {
  const pending = agent.callText('call_tool_read', { name: 'asker:ask_url', args: { url: 'https://login.example.com/start?session=1' } })
  const q = await question('asker:ask_url')
  const card = page.locator(`[data-question="${q.id}"]`)
  await expect(card.locator('[data-url-host]')).toHaveText('login.example.com')
  await expect(card).toContainText('https://login.example.com/start?session=1')
  await expect(button(card, 'Open the page on login.example.com')).toBeVisible()
  await button(card, 'Decline').click()
  expect(await pending).toEqual({ isError: false, text: 'action: decline' })
})

test('sampling: "ask": the request waits as a card with the messages; Allow relays it to the agent\'s client', async () => {
  const asked: string[] = []
  const client = new Client({ name: 'e2e-sampler', version: '1.0.0' }, { capabilities: { sampling: {} } })
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked.push('sampling')
    return { role: 'assistant', content: { type: 'text', text: 'model says hi' }, model: 'test-model' }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }))
  try {
    const pending = client.callTool({ name: 'call_tool_read', arguments: { name: 'asker:sample', args: { prompt: 'Summarise my week' } } })
    const c = await until('the sampling confirmation', async () => (await serve.api.get<{ confirmations: Q[] }>('/api/v1/confirmations')).confirmations[0])
    const card = page.locator(`[data-confirmation="${c.id}"]`)
    await expect(card).toHaveAttribute('data-kind', 'sampling')
    await expect(card.getByRole('heading')).toHaveText('The MCP server asker asks to use your model')
    await expect(card).toContainText('[user] Summarise my week')
    await expect(card).toContainText('maxTokens 50')
    expect(asked).toEqual([])
    await button(card, 'Allow').click()
    const r = await pending
    expect((r.content as Array<{ text?: string }>)[0]?.text).toBe('sampled: model says hi')
    expect(asked).toEqual(['sampling'])
  } finally {
    await client.close()
  }
})

test('the page logged no errors', () => {
  expect(pageErrors).toEqual([])
})
