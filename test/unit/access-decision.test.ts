// One access decision (access/decide.ts), every surface: for random catalogs (servers on and off,
// in quarantine by the operator or waiting for review, config lists, tools approved, changed,
// new, switched off, of every variant, prompts likewise) and random agent scopes (servers,
// permissions), what an agent gets from retrieve_tools, describe_tool, call_tool_*,
// request_access and prompts over a real MCP session, and what the Agents view counts as its
// reach, is the same answer the decision gives. The catalog is built by the user's and the
// operator's real acts on a real state file; the scope is the live scope of a configured agent.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { callWith, VARIANTS, type Variant } from '../../src/shared/call-variant'
import type { ToolDefinition } from '../../src/shared/tool-definition'
import type { PromptDefinition } from '../../src/shared/prompts'
import { ingestTools, setToolDisabled } from '../../src/main/core/catalog/decisions'
import { approveServer, quarantineServer } from '../../src/main/core/catalog/server-decisions'
import { ingestPrompts, setPromptDisabled } from '../../src/main/core/catalog/prompt-decisions'
import { decideAccess, decidePrompt, type Access } from '../../src/main/core/access/decide'
import { liveAgentScope, type Scope } from '../../src/main/core/access/scope'
import { serverReach } from '../../src/main/core/agents-view/reach'
import { agentSession, makeFixture, type RawConfig } from '../helpers/catalog-fixture'

const NAMES = ['alpha', 'bravo', 'kilo', 'zulu'] as const
const PROMPTS = ['summary', 'triage'] as const
const ANNOTATIONS = [{ readOnlyHint: true }, { readOnlyHint: false }, { readOnlyHint: false, destructiveHint: true }, undefined] as const

interface ServerPlan {
  /** approved: approved and listed (a baseline, then a second list); inspected: listed for review only; never: nothing known */
  history: 'approved' | 'inspected' | 'never'
  tools: Array<{ name: string; annotations: number; later: 'same' | 'changed' | 'new'; userOff: boolean }>
  prompts: Array<{ name: string; later: 'same' | 'changed'; userOff: boolean }>
  enabled: boolean
  quarantined: boolean | undefined
  userQuarantined: boolean
  deniedTools: string[]
  deniedPrompts: string[]
}

/** true about one time in four */
const rarely = fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 })

const serverPlan: fc.Arbitrary<ServerPlan> = fc.record({
  history: fc.constantFrom('approved', 'approved', 'approved', 'inspected', 'never'),
  tools: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom(...NAMES),
      annotations: fc.nat({ max: ANNOTATIONS.length - 1 }),
      later: fc.constantFrom('same', 'same', 'changed', 'new'),
      userOff: rarely,
    }),
    { selector: (t) => t.name, maxLength: NAMES.length },
  ),
  prompts: fc.uniqueArray(fc.record({ name: fc.constantFrom(...PROMPTS), later: fc.constantFrom('same', 'same', 'changed'), userOff: rarely }), {
    selector: (p) => p.name,
    maxLength: PROMPTS.length,
  }),
  enabled: rarely.map((off) => !off),
  quarantined: fc.constantFrom(undefined, undefined, undefined, true, false),
  userQuarantined: rarely,
  deniedTools: fc.oneof({ arbitrary: fc.constant<string[]>([]), weight: 2 }, { arbitrary: fc.subarray<string>([...NAMES], { maxLength: 2 }), weight: 1 }),
  deniedPrompts: fc.oneof({ arbitrary: fc.constant<string[]>([]), weight: 2 }, { arbitrary: fc.subarray<string>([...PROMPTS], { maxLength: 1 }), weight: 1 }),
})

interface World {
  servers: ServerPlan[]
  /** the agent's servers: '*' or some of s0.. (and a server that does not exist) */
  agentServers: '*' | string[]
  permissions: Variant[]
}

const world: fc.Arbitrary<World> = fc.record({ servers: fc.array(serverPlan, { minLength: 1, maxLength: 3 }) }).chain(({ servers }) =>
  fc.record({
    servers: fc.constant(servers),
    agentServers: fc.oneof(
      { arbitrary: fc.constant('*' as const), weight: 2 },
      { arbitrary: fc.subarray([...servers.map((_, i) => `s${i}`), 'ghost']), weight: 1 },
    ),
    permissions: fc.oneof(fc.constant<Variant[]>([...VARIANTS]), fc.subarray<Variant>([...VARIANTS], { minLength: 1 })),
  }),
)

const toolDef = (name: string, annotations: number, version: 0 | 1): ToolDefinition => {
  const a = ANNOTATIONS[annotations]
  return {
    name,
    description: version === 0 ? `Does ${name} work on records` : `Does ${name} work on records, and more`,
    inputSchema: { type: 'object', properties: {} },
    ...(a ? { annotations: a } : {}),
  }
}
const promptDef = (name: string, version: 0 | 1): PromptDefinition => ({
  name,
  description: version === 0 ? `Writes a ${name}` : `Writes a ${name}, differently`,
  arguments: [{ name: 'topic', required: true }],
})

/** Builds the world by the real acts: first every server plain and on, then the operator's final config (a config edit). */
async function build(w: World) {
  const plain: Record<string, unknown> = {}
  w.servers.forEach((_, i) => (plain[`s${i}`] = { command: 'node', args: [`s${i}.js`] }))
  const agents = [{ name: 'agent', servers: w.agentServers, permissions: w.permissions }]
  const fx = makeFixture({ agents, mcpServers: plain })
  for (const [i, p] of w.servers.entries()) {
    const name = `s${i}`
    const first = p.tools.filter((t) => t.later !== 'new').map((t) => toolDef(t.name, t.annotations, 0))
    if (p.history === 'inspected') await fx.catalog.setLiveTools(name, first, 'inspect')
    if (p.history !== 'approved') continue
    // the user saw its first prompts (Inspect lists them): approving the server approves those
    const firstPrompts = p.prompts.map((q) => promptDef(q.name, 0))
    await fx.catalog.setLivePrompts(name, firstPrompts, undefined, { source: 'inspect' })
    await approveServer(fx.catalog, name)
    await ingestTools(fx.catalog, name, first)
    await ingestPrompts(fx.catalog, name, firstPrompts)
    await ingestTools(
      fx.catalog,
      name,
      p.tools.map((t) => toolDef(t.name, t.annotations, t.later === 'changed' ? 1 : 0)),
    )
    await ingestPrompts(
      fx.catalog,
      name,
      p.prompts.map((q) => promptDef(q.name, q.later === 'changed' ? 1 : 0)),
    )
    for (const t of p.tools) if (t.userOff) await setToolDisabled(fx.catalog, name, t.name, true)
    for (const q of p.prompts) if (q.userOff) await setPromptDisabled(fx.catalog, name, q.name, true)
    if (p.userQuarantined) await quarantineServer(fx.catalog, name)
  }
  const final: RawConfig = { agents, mcpServers: {} }
  for (const [i, p] of w.servers.entries()) {
    ;(final.mcpServers as Record<string, unknown>)[`s${i}`] = {
      command: 'node',
      args: [`s${i}.js`],
      enabled: p.enabled,
      ...(p.quarantined !== undefined ? { quarantined: p.quarantined } : {}),
      ...(p.deniedTools.length ? { disabled_tools: p.deniedTools } : {}),
      ...(p.deniedPrompts.length ? { disabled_prompts: p.deniedPrompts } : {}),
    }
  }
  fx.writeConfig(final)
  return fx
}

type Answer = 'callable' | 'out_of_scope' | 'unknown' | 'invalid' | `blocked:${string}`

/** The decision as one word: what every surface must agree on. */
function word(a: Access): Answer {
  return a.kind === 'blocked' ? `blocked:${a.status}` : a.kind
}

/** What a refusal's text says, read the way an agent would. */
function refusal(text: string): Answer {
  const blocked = /^TOOL_BLOCKED \((\w+)\)/.exec(text)
  if (blocked) return `blocked:${blocked[1]}`
  if (/ is not in scope for agent /.test(text)) return 'out_of_scope'
  if (/^unknown (tool|server) /.test(text)) return 'unknown'
  if (/^malformed tool name|^name must be/.test(text)) return 'invalid'
  return `other: ${text}` as Answer
}

/** The ids an agent might name: every tool of every server, a made-up tool on each, a tool of no server, a malformed name. */
function probes(w: World): string[] {
  const out: string[] = []
  w.servers.forEach((p, i) => {
    for (const t of p.tools) out.push(`s${i}:${t.name}`)
    out.push(`s${i}:made_up`)
  })
  out.push('ghost:alpha', 'no-colon')
  return out
}

const strongest = (scope: Scope): Variant => [...VARIANTS].reverse().find((v) => scope.allowsVariant(v)) ?? 'read'

describe('one access decision, every surface', () => {
  it('retrieve_tools, describe_tool, call_tool_*, request_access, prompts and the Agents view give the answer decideAccess gives', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const fx = await build(w)
        const scope = liveAgentScope(() => fx.catalog.currentConfig.agents, 'agent', fx.configPath)
        const session = await agentSession(fx, scope)
        const via = `call_tool_${strongest(scope)}`
        for (const name of probes(w)) {
          const a = decideAccess(fx.catalog, scope, name)
          const expected = word(a)
          // describe_tool: the definition of a callable tool, else the gate's refusal
          const described = await session.text('describe_tool', { name })
          if (a.kind === 'callable') {
            expect(described.isError, name).toBe(false)
            expect(JSON.parse(described.text)).toMatchObject({ name, call_with: callWith(a.entry.variant) })
          } else expect(refusal(described.text), `describe_tool ${name}`).toBe(expected)
          // call_tool_*: a callable tool passes the gate and reaches the (not running) server
          const called = await session.text(via, { name, args: {} })
          expect(called.isError).toBe(true)
          if (a.kind === 'callable') expect(called.text, `${via} ${name}`).toMatch(/^server "s\d" is not running/)
          else expect(refusal(called.text), `${via} ${name}`).toBe(expected)
          // request_access: callable → granted; a lock a user can lift → pending; the others → not_requestable; no such tool for this agent → an error
          const asked = await session.text('request_access', { name, reason: 'the task needs it' })
          if (a.kind === 'callable') expect(JSON.parse(asked.text)).toMatchObject({ status: 'granted' })
          else if (a.kind === 'blocked') {
            const status = asked.isError ? 'too_many' : (JSON.parse(asked.text) as { status: string }).status
            if (a.request.requestable) expect(['pending', 'too_many'], `request_access ${name}`).toContain(status)
            else expect(status, `request_access ${name}`).toBe('not_requestable')
          } else {
            expect(asked.isError, `request_access ${name}`).toBe(true)
            if (a.kind !== 'invalid') expect(refusal(asked.text.replace(/^request_access: /, '')), `request_access ${name}`).toBe(expected)
          }
          // retrieve_tools by the tool's name: callable ⇔ among the tools; listed as locked ⇒ that status
          const ref = name.split(':')
          if (ref.length !== 2) continue
          const found = JSON.parse((await session.text('retrieve_tools', { query: ref[1], include_disabled: true, limit: 100 })).text) as {
            tools: Array<{ name: string; call_with: string }>
            disabled?: Array<{ name: string; status: string }>
          }
          const asTool = found.tools.find((t) => t.name === name)
          const asLocked = found.disabled?.find((t) => t.name === name)
          if (a.kind === 'callable') expect(asTool, `retrieve_tools ${name}`).toMatchObject({ call_with: callWith(a.entry.variant) })
          else expect(asTool, `retrieve_tools ${name}`).toBeUndefined()
          if (asLocked) expect(`blocked:${asLocked.status}`, `retrieve_tools ${name}`).toBe(expected)
          if (a.kind === 'blocked' && a.entry && !asLocked) {
            // locked and never approved and not shown by name (a tool of a switched-off or a config-denied listing): its text is not trusted, nothing to match
            expect(['server_disabled', 'disabled_by_config'], `retrieve_tools ${name}`).toContain(a.status)
            expect(a.entry.approval === 'approved', `retrieve_tools ${name} (approved text is searchable)`).toBe(false)
          }
          if (a.kind === 'out_of_scope' || a.kind === 'unknown') expect(asLocked, `retrieve_tools ${name}`).toBeUndefined()
        }
        // the Agents view's reach: per server, the decisions counted
        const { reach } = serverReach(fx.catalog, scope)
        for (const r of reach) {
          const entries = fx.catalog.entries(r.server).filter((e) => !e.hidden)
          const answers = entries.map((e) => decideAccess(fx.catalog, scope, e.id))
          expect(r.callable, `reach ${r.server}`).toBe(scope.allowsServer(r.server) ? answers.filter((x) => x.kind === 'callable').length : 0)
          if (!scope.allowsServer(r.server)) continue
          const needs: Record<string, number> = {}
          const locked: Record<string, number> = {}
          for (const x of answers) {
            if (x.kind === 'out_of_scope' && x.needs) needs[x.needs] = (needs[x.needs] ?? 0) + 1
            if (x.kind === 'blocked') locked[x.status] = (locked[x.status] ?? 0) + 1
          }
          expect(r.needs_permission ?? {}, `reach ${r.server}`).toEqual(needs)
          expect(r.locked ?? {}, `reach ${r.server}`).toEqual(locked)
        }
        // prompts: listed ⇔ callable; a get of a locked one says its status, of one out of scope that it does not exist
        const listed = new Set((await session.client.listPrompts()).prompts.map((p) => p.name))
        for (const [i, p] of w.servers.entries()) {
          for (const q of p.prompts) {
            const agentName = fx.catalog.prompts.agentName(`s${i}:${q.name}`)
            if (agentName === undefined) continue
            const pa = decidePrompt(fx.catalog, scope, agentName)
            expect(listed.has(agentName), `prompts/list ${agentName}`).toBe(pa.kind === 'callable')
            const got = await session.client.getPrompt({ name: agentName, arguments: { topic: 'x' } }).then(
              () => 'ok',
              (e: Error) => e.message,
            )
            if (pa.kind === 'callable') expect(got, `prompts/get ${agentName}`).toMatch(/is not running/)
            else if (pa.kind === 'blocked') expect(got, `prompts/get ${agentName}`).toContain(`is not available (${pa.status})`)
            else expect(got, `prompts/get ${agentName}`).toContain('unknown prompt')
          }
        }
      }),
      { numRuns: 60 },
    )
  }, 120_000)
})
