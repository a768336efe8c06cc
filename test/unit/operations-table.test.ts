// The table of operations (src/shared/operations.ts) and what derives from it: every operation's
// HTTP route as docs/contract.md §5/§7 writes it (literal paths, written here by hand), a request decoded
// by the router back into the arguments the client encoded, the body rules (ignored, refused,
// per action), the IPC argument checks, and an operation added to a table of its own reaching
// both halves with nothing else written.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApiError } from '../../src/shared/api'
import { argsOfIpc, argsOfRequest, json, matchRoute, op, requestOf, type OpSpec } from '../../src/shared/operation'
import { OP_NAMES, OPERATIONS, type OpName } from '../../src/shared/operations'
import { PROMPT_ACTION_OPTIONS, SERVER_ACTION_OPTIONS, TOOL_ACTION_OPTIONS } from '../../src/shared/actions'

const H = 'a'.repeat(64)

/**
 * One call of every operation and the request docs/contract.md §5/§7 says it is (method, path under
 * /api/v1, body); last, where the router's arguments differ from the call's: a query's values are
 * strings (the activity store coerces them), no filter is {}, a tool absent from the path is none.
 */
const CALLS: Array<[OpName, unknown[], string, unknown?, unknown[]?]> = [
  ['info', [], 'GET /info'],
  ['status', [], 'GET /status'],
  ['servers', [], 'GET /servers'],
  ['server', ['my server'], 'GET /servers/my%20server'],
  ['tools', ['gh'], 'GET /servers/gh/tools'],
  ['serverAction', ['gh', 'approve', { for: '1h', hash: H }], 'POST /servers/gh/approve', { for: '1h', hash: H }],
  ['serverAction', ['gh', 'inspect', { network: true }], 'POST /servers/gh/inspect', { network: true }],
  ['serverAction', ['gh', 'quarantine'], 'POST /servers/gh/quarantine', {}],
  ['toolAction', ['gh', 'weird/tool:name', 'disable'], 'POST /servers/gh/tools/weird%2Ftool%3Aname/disable', {}],
  ['toolAction', ['gh', 'list', 'approve', { hash: H }], 'POST /servers/gh/tools/list/approve', { hash: H }],
  ['approveAll', ['gh'], 'POST /servers/gh/tools/approve-all', {}],
  ['classifyTool', ['gh', 'get_file', 'read', H], 'POST /servers/gh/tools/get_file/classify', { class: 'read', hash: H }],
  ['prompts', ['everything'], 'GET /servers/everything/prompts'],
  ['resources', ['everything'], 'GET /servers/everything/resources'],
  ['promptAction', ['everything', 'simple-prompt', 'approve', { hash: H }], 'POST /servers/everything/prompts/simple-prompt/approve', { hash: H }],
  ['promptAction', ['everything', 'a/b c', 'disable'], 'POST /servers/everything/prompts/a%2Fb%20c/disable', {}],
  [
    'templateAction',
    ['everything', 'approve', 'file:///notes/{id}.md', H],
    'POST /servers/everything/resource-templates/approve',
    { uri_template: 'file:///notes/{id}.md', hash: H },
  ],
  ['templateAction', ['a b', 'reject', 'x://{y}', H], 'POST /servers/a%20b/resource-templates/reject', { uri_template: 'x://{y}', hash: H }],
  ['approveAll', ['gh', { hashes: { list: H } }], 'POST /servers/gh/tools/approve-all', { hashes: { list: H } }],
  ['agentTokens', ['reader'], 'GET /agents/reader/tokens'],
  ['revokeAgentTokens', ['reader', 't1'], 'DELETE /agents/reader/tokens/t1'],
  ['revokeAgentTokens', ['reader'], 'DELETE /agents/reader/tokens'],
  ['setAskInClient', ['reader', true], 'POST /agents/reader/ask-in-client', { on: true }],
  ['requests', [{ status: 'pending' }], 'GET /requests?status=pending'],
  ['requests', [], 'GET /requests', undefined, [{}]],
  ['grantRequest', ['r1', 'once'], 'POST /requests/r1/grant', { for: 'once' }],
  ['grantRequest', ['r1', '1h', { hash: H }], 'POST /requests/r1/grant', { for: '1h', hash: H }],
  ['denyRequest', ['r1'], 'POST /requests/r1/deny', {}],
  ['confirmations', [{ status: 'all' }], 'GET /confirmations?status=all'],
  ['allowConfirmation', ['c1'], 'POST /confirmations/c1/allow', {}],
  ['denyConfirmation', ['c1'], 'POST /confirmations/c1/deny', {}],
  ['questions', [{ status: 'all' }], 'GET /questions?status=all'],
  ['answerQuestion', ['q1', 'accept', { name: 'Ada' }], 'POST /questions/q1/answer', { action: 'accept', content: { name: 'Ada' } }],
  ['answerQuestion', ['q1', 'decline'], 'POST /questions/q1/answer', { action: 'decline' }],
  ['setAskBeforeCall', ['gh', null, true], 'POST /servers/gh/confirm', { ask: true }, ['gh', undefined, true]],
  ['setAskBeforeCall', ['gh', 'rm', false], 'POST /servers/gh/tools/rm/confirm', { ask: false }],
  ['search', [{ query: 'read a file', limit: 5, include_disabled: true }], 'GET /search?q=read+a+file&limit=5&include_disabled=true'],
  ['stats', [], 'GET /stats'],
  ['activity', [{ agent: 'alice', limit: 3 }], 'GET /activity?agent=alice&limit=3', undefined, [{ agent: 'alice', limit: '3' }]],
  ['agents', [], 'GET /agents'],
  ['serverEntry', ['gh'], 'GET /servers/gh/entry'],
  ['addServer', [{ name: 'x', command: 'node' }], 'POST /servers', { name: 'x', command: 'node' }],
  ['editServer', ['x', { name: 'x', url: 'https://e.example/mcp' }], 'PUT /servers/x', { name: 'x', url: 'https://e.example/mcp' }],
  ['removeServer', ['x'], 'DELETE /servers/x'],
  ['restoreServer', ['x'], 'POST /servers/x/restore', {}],
  ['secrets', [], 'GET /secrets'],
  ['setSecret', ['GH_TOKEN', 'v'], 'PUT /secrets/GH_TOKEN', { value: 'v' }],
  ['deleteSecret', ['GH_TOKEN'], 'DELETE /secrets/GH_TOKEN'],
  ['signIn', ['remote'], 'POST /servers/remote/auth/login', {}],
  ['authStatus', ['remote'], 'GET /servers/remote/auth'],
  ['signOut', ['remote'], 'POST /servers/remote/auth/logout', {}],
]

/** What the router sees of a request the client made: segments decoded, query as a record. */
function asReceived(p: string): { parts: string[]; query: Record<string, string> } {
  const url = new URL(`http://x/api/v1${p}`)
  const parts = url.pathname
    .replace(/^\/api\/v1\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent)
  return { parts, query: Object.fromEntries(url.searchParams) }
}

/** A request decoded as the router decodes it: which operation, with which arguments. */
function route(method: string, p: string, body?: unknown): { name: string; args: unknown[] } {
  const { parts, query } = asReceived(p)
  const found = matchRoute(OPERATIONS, method, parts)
  if (!found) throw new Error(`no route for ${method} ${p}`)
  return { name: found.name, args: argsOfRequest(OPERATIONS[found.name], found.params, query, body) }
}

const trimmed = (args: unknown[]): unknown[] => {
  const a = [...args]
  while (a.length && a[a.length - 1] === undefined) a.pop()
  return a
}

describe('the table of operations', () => {
  it('names each argument once, in the order of its schema, and every route and body refers to named arguments only', () => {
    for (const name of OP_NAMES) {
      const spec: OpSpec = OPERATIONS[name]
      expect(spec.args.def.items.length, name).toBe(spec.names.length)
      const referenced = [
        ...spec.http.paths.flatMap((p) =>
          p
            .split('/')
            .filter((s) => s.startsWith(':'))
            .map((s) => s.slice(1)),
        ),
        ...Object.values(spec.http.body?.fields ?? {}),
        ...(spec.http.body?.options ? [spec.http.body.options.arg] : []),
        ...(spec.http.body?.whole ? [spec.http.body.whole] : []),
        ...(spec.http.query ? [spec.http.query.arg] : []),
      ]
      for (const r of referenced) expect(spec.names, `${name} refers to ${r}`).toContain(r)
    }
  })

  it('covers every operation in the calls below (a new operation needs its line here)', () => {
    expect([...new Set(CALLS.map((c) => c[0]))].sort()).toEqual([...OP_NAMES].sort())
  })

  it.each(CALLS)('%s %j is the request the contract names, and the router reads it back into the same arguments', (name, args, request, body, decoded) => {
    const r = requestOf(OPERATIONS[name], args)
    expect(`${r.method} ${r.path}`).toBe(request)
    expect(r.body).toEqual(body)
    const back = route(r.method, r.path, r.body)
    expect(back.name).toBe(name)
    expect(trimmed(back.args)).toEqual(decoded ?? args)
  })

  it('the options each action takes are the table’s: for on enable and approve, hash on what binds a review, network on inspect', () => {
    const taking = (table: Record<string, readonly string[]>, key: string) => Object.keys(table).filter((a) => table[a].includes(key))
    expect(taking(SERVER_ACTION_OPTIONS, 'for')).toEqual(['enable', 'approve'])
    expect(taking(TOOL_ACTION_OPTIONS, 'for')).toEqual(['enable', 'approve'])
    expect(taking(SERVER_ACTION_OPTIONS, 'hash')).toEqual(['approve', 'inspect'])
    expect(taking(TOOL_ACTION_OPTIONS, 'hash')).toEqual(['approve', 'reject'])
    expect(taking(SERVER_ACTION_OPTIONS, 'network')).toEqual(['inspect'])
    expect(taking(PROMPT_ACTION_OPTIONS, 'hash')).toEqual(['approve', 'reject'])
  })
})

describe('the router (the HTTP half)', () => {
  const fails = (method: string, p: string, body?: unknown) => {
    try {
      route(method, p, body)
    } catch (e) {
      return e
    }
    throw new Error(`${method} ${p} was accepted`)
  }

  it('an unknown action, a wrong method or an extra segment is no route (404 upstream), not a bad argument', () => {
    for (const [m, p] of [
      ['POST', '/servers/gh/bogus'],
      ['POST', '/servers/gh/tools/t/inspect'],
      ['GET', '/servers/gh/approve'],
      ['PATCH', '/servers'],
      ['GET', '/servers/gh/tools/t'],
      ['GET', '/nothing-here'],
    ] as const) {
      expect(matchRoute(OPERATIONS, m, asReceived(p).parts), `${m} ${p}`).toBeNull()
    }
  })

  it('an action ignores the options it does not take, as before: for on disable, hash on enable, garbage on restart', () => {
    expect(route('POST', '/servers/gh/disable', { for: 'nonsense' }).args).toEqual(['gh', 'disable', undefined])
    expect(route('POST', '/servers/gh/restart', [1, 2, 3]).args).toEqual(['gh', 'restart', undefined])
    expect(route('POST', '/servers/gh/enable', { for: '1h', hash: 42, colour: 'red' }).args).toEqual(['gh', 'enable', { for: '1h' }])
    expect(route('POST', '/servers/gh/tools/t/disable', 'text').args).toEqual(['gh', 't', 'disable', undefined])
  })

  it('options an action takes are checked: a bad duration, "once", an empty hash, a non-object body are 400 invalid_arguments', () => {
    for (const [p, body, msg] of [
      ['/servers/gh/enable', { for: 'forever' }, /for must be "once", "always", or a duration/],
      ['/servers/gh/tools/t/enable', { for: 'once' }, /"once" answers an agent's access request/],
      ['/servers/gh/approve', { hash: '' }, /hash must not be empty/],
      ['/servers/gh/approve', { hash: 42 }, /hash must be a string/],
      ['/servers/gh/enable', [1], /the body must be a JSON object like \{"for": …\}/],
      ['/servers/gh/inspect', { network: 'yes' }, /network must be true or false/],
    ] as const) {
      const e = fails('POST', p, body)
      expect(e, p).toBeInstanceOf(ApiError)
      expect(e).toMatchObject({ code: 'invalid_arguments', status: 400, message: expect.stringMatching(msg) as unknown as string })
    }
  })

  it('Inspect takes network from the body or ?network=, and a malformed ?network= is refused', () => {
    expect(route('POST', '/servers/q/inspect?network=true').args).toEqual(['q', 'inspect', { network: true }])
    expect(route('POST', '/servers/q/inspect?network=1', { network: false }).args).toEqual(['q', 'inspect', { network: true }])
    expect(route('POST', '/servers/q/inspect?network=0').args).toEqual(['q', 'inspect', undefined])
    expect(route('POST', '/servers/q/approve?network=true').args).toEqual(['q', 'approve', undefined])
    expect(fails('POST', '/servers/q/inspect?network=maybe')).toMatchObject({ status: 400, message: 'network must be true or false' })
  })

  it('strict bodies refuse what they do not take: a grant with another key, an answer that claims where it came from, an ask switch without ask', () => {
    expect(fails('POST', '/requests/r1/grant', { for: '1h', also: 'always' })).toMatchObject({ status: 400, message: expect.stringMatching(/body.*also/) })
    expect(fails('POST', '/requests/r1/grant', {})).toMatchObject({ status: 400, message: expect.stringMatching(/^for must be/) })
    expect(fails('POST', '/confirmations/c1/allow', { via: 'window' })).toMatchObject({ status: 400, message: expect.stringMatching(/empty or \{\}.*via/) })
    expect(fails('POST', '/confirmations/c1/deny', 'x')).toMatchObject({ status: 400 })
    expect(route('POST', '/confirmations/c1/deny', {}).args).toEqual(['c1'])
    expect(fails('POST', '/servers/gh/confirm', {})).toMatchObject({ status: 400, message: 'ask must be true or false' })
    expect(fails('POST', '/servers/gh/confirm', { ask: true, tool: 'x' })).toMatchObject({ status: 400 })
  })

  it('filters are checked once, by the schema of the table; an empty parameter is no filter', () => {
    expect(route('GET', '/requests?status=').args).toEqual([{}])
    expect(fails('GET', '/requests?status=bogus')).toMatchObject({ status: 400, message: expect.stringMatching(/status must be one of pending/) })
    expect(fails('GET', '/requests?agent=alice')).toMatchObject({ status: 400 })
    expect(fails('GET', '/confirmations?status=maybe')).toMatchObject({ status: 400 })
    expect(route('GET', '/activity?agent=&kind=call').args).toEqual([{ kind: 'call' }])
  })

  it('search keeps its query words and messages', () => {
    expect(fails('GET', '/search')).toMatchObject({ status: 400, message: expect.stringMatching(/^q is required/) })
    expect(fails('GET', '/search?q=x&limit=ten')).toMatchObject({ status: 400, message: 'limit must be an integer from 1 to 100' })
    expect(fails('GET', '/search?q=x&include_disabled=yes')).toMatchObject({ status: 400, message: 'include_disabled must be true or false' })
    expect(route('GET', '/search?q=x&include_disabled=1').args).toEqual([{ query: 'x', include_disabled: true }])
  })

  it('a prototype key in a body is data, never an option', () => {
    const r = route('POST', '/servers/gh/approve', JSON.parse('{"__proto__": {"hash": "x"}, "for": "1h"}'))
    expect(r.args).toEqual(['gh', 'approve', { for: '1h' }])
    expect(({} as Record<string, unknown>).hash).toBeUndefined()
  })
})

describe('IPC arguments (the IPC half)', () => {
  const ipc = (name: OpName, args: unknown[]) => {
    try {
      return argsOfIpc(name, OPERATIONS[name], args)
    } catch (e) {
      return e
    }
  }

  it('are checked by the same schemas, strictly: unknown option keys and wrong types are 400 bad_request', () => {
    for (const [name, args] of [
      ['serverAction', ['gh', 'rm -rf']],
      ['serverAction', ['gh', 'approve', { hash: H, also: 1 }]],
      ['serverAction', ['gh', 'enable', { for: 'once' }]],
      ['toolAction', ['gh', '', 'disable']],
      ['tools', [42]],
      ['requests', [{ status: 'bogus' }]],
      ['confirmations', [{ status: 'pending', via: 'tray' }]],
      ['setAskBeforeCall', ['gh', null, 'yes']],
      ['grantRequest', ['r1', 'forever']],
      // search is held to retrieve_tools' own schema, at the table as in the agent server
      ['search', [{ query: '  ' }]],
      ['search', [{ query: 'read a file', limit: 101 }]],
      ['search', [{ query: 'read a file', include_disabled: 'yes' }]],
      ['search', ['read a file']],
    ] as Array<[OpName, unknown[]]>) {
      expect(ipc(name, args), `${name} ${JSON.stringify(args)}`).toMatchObject({ code: 'bad_request', status: 400 })
    }
  })

  it('pass what is right through unchanged', () => {
    expect(ipc('serverAction', ['gh', 'approve', { for: '1h', hash: H }])).toEqual(['gh', 'approve', { for: '1h', hash: H }])
    expect(ipc('setAskBeforeCall', ['gh', null, true])).toEqual(['gh', null, true])
    expect(ipc('revokeAgentTokens', ['reader'])).toEqual(['reader'])
    expect(ipc('search', [{ query: 'read a file', limit: 3, include_disabled: true }])).toEqual([{ query: 'read a file', limit: 3, include_disabled: true }])
    // what the renderer adds past the table's arguments never reaches the core (a confirmation's `via` is the window's)
    expect(ipc('allowConfirmation', ['c1', 'cli'])).toEqual(['c1'])
  })
})

describe('an operation added to a table', () => {
  it('reaches the client and the router with nothing but its entry', () => {
    const table = {
      ...OPERATIONS,
      ping: op({
        names: ['server', 'count'],
        args: () => z.tuple([z.string().min(1), z.number({ error: 'count must be a number' }).int()]),
        http: { method: 'POST', paths: ['/servers/:server/ping'], body: { fields: { count: 'count' }, others: 'refuse' } },
        result: json<{ pong: number }>(),
      }),
    }
    const r = requestOf(table.ping, ['gh', 3])
    expect(r).toEqual({ method: 'POST', path: '/servers/gh/ping', body: { count: 3 } })
    const found = matchRoute(table, 'POST', ['servers', 'gh', 'ping'])
    expect(found).toEqual({ name: 'ping', params: { server: 'gh' } })
    expect(argsOfRequest(table.ping, { server: 'gh' }, {}, r.body)).toEqual(['gh', 3])
    expect(() => argsOfRequest(table.ping, { server: 'gh' }, {}, { count: 'x' })).toThrow('count must be a number')
    // the existing routes are untouched by it
    expect(matchRoute(table, 'POST', ['servers', 'gh', 'approve'])?.name).toBe('serverAction')
  })
})

describe('the built preload', () => {
  it('requires nothing but electron (a sandboxed preload cannot): the table it whitelists from is bundled in', () => {
    const file = path.join(import.meta.dirname, '../../out/preload/index.js')
    expect(fs.existsSync(file), 'out/preload/index.js is missing: run `npm run build` first').toBe(true)
    const required = [...fs.readFileSync(file, 'utf8').matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1])
    expect([...new Set(required)]).toEqual(['electron'])
  })
})
