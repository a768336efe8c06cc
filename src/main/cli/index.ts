// The toolgate command line (docs/contract.md §1).
import fs from 'node:fs'
import path from 'node:path'
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { parseToolId } from '../../shared/ids'
import { SERVER_ACTIONS, TOOL_ACTIONS, type ServerActionOptions, SERVER_ACTION_OPTIONS, takesOption, TOOL_ACTION_OPTIONS } from '../../shared/actions'
import { isVariant } from '../../shared/call-variant'
import { ACTIVITY_KINDS, CALL_OUTCOMES } from '../../shared/activity'
import { escapeText } from '../../shared/text'
import { VERSION } from '../core/version'
import { parseListen } from '../core/paths'
import { fail, UsageError } from './errors'
import { checkDataDirFlag, checkNewFileFolder } from './new-paths'
import { withOperator, type Where } from './control-client'
import { approveHint, printLaunchNotice, printServers, printTools } from './print'
import { printJsonText, say, sayErr } from './output'
import { approveAllReviewed, approveReviewed, classifyReviewed, toolDiff } from './review-commands'
import { serve } from './serve'
import { stdio } from './stdio'
import { demo } from './demo'
import { open } from './open'
import { connect, importCmd } from './clients'
import { startApp } from './app'
import { grantForOption, registerRequests } from './requests'
import { activityCmd } from './activity'
import { secretsList, secretsRm, secretsSet } from './secrets'
import { serversAdd, serversRemove } from './servers-edit'
import { authLogin, authLogout, authStatus } from './auth'
import { registerConfirmations } from './confirmations'
import { registerQuestions } from './questions'
import { registerPrompts } from './prompts'
import { registerAgents } from './agents'
import { registerResources } from './resources'

const program = new Command('toolgate')
  .description('Toolgate: one safe MCP endpoint in front of every MCP server you use.')
  .version(VERSION)
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(escapeText(s)), writeOut: (s) => process.stdout.write(escapeText(s)) })

// A --config that does not exist is a mistake (a typo would start an empty Toolgate): exit 2.
// Only the default <data-dir>/mcp_config.json is created when missing; `import` may create one.
program.hook('preAction', (_program, action) => {
  const file = action.opts<{ config?: unknown }>().config
  if (typeof file !== 'string' || action.name() === 'import' || fs.existsSync(path.resolve(file))) return
  throw new UsageError(
    `${path.resolve(file)}: the config file does not exist; check the --config path (without --config, <data-dir>/mcp_config.json is used and created when missing)`,
  )
})

// A --data-dir or a connect --file folder that does not exist: asked in a terminal, refused when it looks like a typo otherwise (new-paths.ts).
program.hook('preAction', async (_program, action) => {
  const o = action.opts<{ dataDir?: unknown; file?: unknown; write?: unknown }>()
  // `toolgate stdio`'s stdin is the client's MCP stream: nobody answers there
  const asking = { interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY) && action.name() !== 'stdio' }
  if (typeof o.dataDir === 'string') await checkDataDirFlag(o.dataDir, asking)
  if (action.name() === 'connect' && o.write === true && typeof o.file === 'string') await checkNewFileFolder(o.file, asking)
})

function checkListen(v: string): string {
  try {
    parseListen(v)
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message)
  }
  return v
}

const where = (c: Command): Command =>
  c
    .option('--config <file>', 'config file (default <data-dir>/mcp_config.json)')
    .option('--data-dir <dir>', 'data dir (default ~/.toolgate or $TOOLGATE_DATA_DIR)')

const w = (o: { config?: string; dataDir?: string }): Where => ({ config: o.config, dataDir: o.dataDir })

where(program.command('serve'))
  .description('run the headless core: MCP at /mcp, control API at /api/v1, web UI at /')
  .option('--listen <host:port>', 'listen address (default 127.0.0.1:8719)', checkListen)
  .action((o) => serve(o))

where(program.command('stdio'))
  .description('MCP over stdio for Claude Desktop / Cursor (bridges to a running Toolgate, else runs embedded)')
  .option('--agent <name>', 'restrict this connection to an agent from the config')
  .option('--direct', 'the direct view: list every callable tool as its own tool <server>__<tool> too (MCP Apps need it)')
  .action((o) => stdio(o))

where(program.command('open'))
  .description('open (and print) the web UI of the running Toolgate, whoever owns the data dir')
  .action((o) => open(o))

program
  .command('app')
  .description('start the Electron tray app (same as `npm start`; needs Electron)')
  .allowUnknownOption()
  .argument('[args...]', 'passed on to the app (--config, --data-dir, --listen, --hidden)')
  .action((args: string[]) => startApp(args))

const servers = program.command('servers').description('operator actions on servers')
/** One line per server action for `toolgate servers --help` (they had none). */
const SERVER_ACTION_HELP: Record<(typeof SERVER_ACTIONS)[number], string> = {
  enable: 'switch a server on (it starts; a quarantined one still waits for approval)',
  disable: 'switch a server off: it stops and agents see none of its tools',
  approve: 'approve a quarantined server after reviewing it (its new tools still wait for approval)',
  quarantine: 'put a server back into quarantine: its tools are locked until approved again',
  restart: 'stop and start a server again (after a failure or a change it needs)',
  inspect: 'start a quarantined server once, sandboxed, to list its tools for review; it is stopped again',
}
/** One line per tool action for `toolgate tools --help`. */
const TOOL_ACTION_HELP: Record<(typeof TOOL_ACTIONS)[number], string> = {
  enable: 'switch SERVER:TOOL on again (the user turned it off)',
  disable: 'switch SERVER:TOOL off: agents find it only as locked',
  approve: 'approve a new or changed SERVER:TOOL after showing what changed (--all: every one of a SERVER)',
  reject: 'reject a new or changed SERVER:TOOL: it stays off as your decision',
}

where(servers.command('list'))
  .description('the servers with their state and tool counts')
  .option('--json', 'print JSON')
  .action(async (o) => {
    await withOperator(w(o), async (op) => {
      printServers((await op.api.servers()).servers, o.json === true)
      const info = await op.api.info()
      for (const k of info.config_warnings ?? []) sayErr(`warning: ${info.config_path}: unknown key ${k} is ignored (a typo?)`)
      for (const n of info.config_notes ?? []) sayErr(`warning: ${info.config_path}: ${n}`)
    })
  })
for (const action of SERVER_ACTIONS) {
  const cmd = where(servers.command(`${action} <name>`)).description(SERVER_ACTION_HELP[action])
  if (action === 'inspect') cmd.option('--network', 'let the (unreviewed) server reach the network while it is inspected, e.g. for npx to download it')
  if (takesOption(SERVER_ACTION_OPTIONS, action, 'for')) cmd.option('--for <duration>', 'only for this long (30m, 1h, 8h), then it goes back', grantForOption)
  if (action === 'approve')
    cmd.option('--hash <launch_hash>', 'approve only if the launch is still the one reviewed (launch_hash from `servers inspect` or `servers list --json`)')
  cmd.action(async (name: string, o) => {
    await withOperator(w(o), async (op) => {
      // Inspect runs exactly the launch it printed (bound by its launch_hash)
      const shown = action === 'inspect' ? (await op.api.server(name)).server : null
      if (shown && (shown.quarantined || !shown.enabled)) printLaunchNotice(shown)
      const hash = shown ? shown.launch_hash : (o.hash as string | undefined)
      const options: ServerActionOptions = { ...(o.network ? { network: true } : o.for ? { for: o.for as string } : {}), ...(hash ? { hash } : {}) }
      say((await op.api.serverAction(name, action, Object.keys(options).length ? options : undefined)).message)
      if (shown) printTools((await op.api.tools(name)).tools, false)
      if (shown?.quarantined) say(approveHint(shown))
    })
  })
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v]
/** `a, b or c`: help texts list what the code accepts, from the same constants. */
function orList(xs: readonly string[]): string {
  return xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}` : xs.join('')
}
where(servers.command('add <name> [command...]'))
  .description('add a server: toolgate servers add NAME -- COMMAND ARGS…, or --url URL; it waits in quarantine until inspected and approved')
  .option('--url <url>', 'an HTTP server (Streamable HTTP, falling back to SSE)')
  .option('--env <K=V>', 'an environment variable (repeatable); use ${secret:NAME} for secrets', collect)
  .option('--header <K=V>', 'an HTTP header, "Name=value" or "Name: value" (repeatable)', collect)
  .option('--cwd <dir>', 'working folder of a stdio server')
  .addOption(new Option('--protocol <p>', 'transport').choices(['stdio', 'http', 'streamable-http', 'sse', 'auto']))
  .option('--disabled', 'add it switched off')
  .action((name: string, command: string[], o) => serversAdd(name, command, { ...o, ...w(o) }))
where(servers.command('remove <name>'))
  .description('remove a server from the config (its approvals are kept for an undo in the window for 10 minutes)')
  .action((name: string, o) => serversRemove(name, w(o)))

const tools = program.command('tools').description('operator actions on tools')
where(tools.command('list [server]'))
  .description("every tool (or SERVER's) with its status and how agents call it")
  .option('--json', 'print JSON')
  .action(async (server: string | undefined, o) => {
    await withOperator(w(o), async (op) => {
      const names = server ? [server] : (await op.api.servers()).servers.map((s) => s.name)
      const all = []
      for (const n of names) all.push(...(await op.api.tools(n)).tools)
      printTools(all, o.json === true)
    })
  })
where(tools.command('diff <target>'))
  .description('show what changed in SERVER:TOOL since it was approved (or all of a new tool)')
  .action(async (target: string, o) => {
    const ref = parseToolId(target)
    if ('error' in ref) throw new UsageError(ref.error)
    await withOperator(w(o), async (op) => {
      await toolDiff(op, ref)
    })
  })
for (const action of TOOL_ACTIONS) {
  const cmd = where(tools.command(`${action} <target>`)).description(TOOL_ACTION_HELP[action])
  if (action === 'approve') {
    cmd.option('--all', 'approve every new tool of SERVER, and each changed one after showing its change and asking')
    cmd.option('-y, --yes', 'approve a changed tool without asking (for scripts; the change is still printed)')
  }
  if (takesOption(TOOL_ACTION_OPTIONS, action, 'for')) cmd.option('--for <duration>', 'only for this long (30m, 1h, 8h), then it goes back', grantForOption)
  cmd.action(async (target: string, o) => {
    if (action === 'approve' && o.all) {
      await withOperator(w(o), async (op) => {
        await approveAllReviewed(op, target, { yes: o.yes === true })
      })
      return
    }
    const ref = parseToolId(target)
    if ('error' in ref) throw new UsageError(ref.error)
    await withOperator(w(o), async (op) => {
      if (action === 'approve') await approveReviewed(op, ref, { yes: o.yes === true, for: o.for as string | undefined })
      else say((await op.api.toolAction(ref.server, ref.tool, action, o.for ? { for: o.for as string } : undefined)).message)
    })
  })
}

where(tools.command('classify <target> <class>'))
  .description(
    "give SERVER:TOOL its call variant (read, write or destructive) where its server gives no annotations; it holds for this definition only (a changed tool asks again); the operator's tool_classes and a server's stricter annotation win",
  )
  .option('--hash <definition_hash>', 'classify only if the definition is still the one you reviewed (approval.hash in `tools list --json`)')
  .action(async (target: string, cls: string, o) => {
    const ref = parseToolId(target)
    if ('error' in ref) throw new UsageError(ref.error)
    if (!isVariant(cls)) throw new UsageError(`class must be read, write or destructive, not "${cls}"`)
    await withOperator(w(o), async (op) => {
      await classifyReviewed(op, ref, cls, o.hash as string | undefined)
    })
  })

registerPrompts(program, where, w)
registerResources(program, where, w)
registerRequests(program, where, w)
registerConfirmations(program, where, w)
registerQuestions(program, where, w)

where(program.command('search <query>'))
  .description('print exactly the JSON retrieve_tools returns')
  .addOption(
    new Option('--limit <n>', 'maximum callable results (1-100)').argParser((v) => {
      if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 100) throw new InvalidArgumentError('limit must be an integer from 1 to 100')
      return Number(v)
    }),
  )
  .option('--include-disabled', 'also list locked tools with remediation')
  .action(async (query: string, o) => {
    await withOperator(w(o), async (op) => {
      const text = await op.api.search({
        query,
        ...(o.limit !== undefined ? { limit: o.limit as number } : {}),
        ...(o.includeDisabled ? { include_disabled: true } : {}),
      })
      printJsonText(text)
    })
  })

where(program.command('forget-searches'))
  .description('forget what retrieve_tools learned from the tools agents called (config search.learn)')
  .action(async (o) => {
    await withOperator(w(o), async (op) => {
      process.stdout.write(`forgot ${await op.forgetLearned()} learned search(es)\n`)
    })
  })

where(program.command('activity'))
  .description('what agents searched for and called, and who decided what (newest last)')
  .option('--agent <name>', 'only this agent (or local client name)')
  .option('--server <name>', 'only calls and decisions about this server')
  .option('--tool <tool>', 'only this tool ("server:tool" or the bare tool name)')
  .option('--kind <kind>', orList(ACTIVITY_KINDS))
  .option('--outcome <outcome>', `${orList(CALL_OUTCOMES)} (declined: a call that waited for your OK and was not allowed)`)
  .option('--since <when>', 'an ISO time or a relative time like 10m, 2h, 7d')
  .option('--limit <n>', 'how many records (1-500, default 50)')
  .option('--json', 'print the API page as JSON (with --follow: one JSON record per line)')
  .option('--follow', 'keep printing new records as they happen (needs a running Toolgate)')
  .action((o) => activityCmd(o))

registerAgents(program, where, w)

const secrets = program.command('secrets').description('secrets for ${secret:NAME} references (values are write-only)')
where(secrets.command('set <name>'))
  .description('store a secret: the value is read from a prompt that does not echo, or from stdin (never from the command line)')
  .action((name: string, o) => secretsSet(name, w(o)))
where(secrets.command('list'))
  .description('the secrets by name and the servers that use them (never their values)')
  .option('--json', 'print JSON')
  .action((o) => secretsList(w(o), o.json === true))
where(secrets.command('rm <name>'))
  .description('remove a secret (servers that use it stop with an error naming it)')
  .action((name: string, o) => secretsRm(name, w(o)))

const auth = program.command('auth').description('OAuth sign-in of HTTP servers (tokens kept in the secret store)')
where(auth.command('login <server>'))
  .description('print the sign-in page to open, and wait until the browser comes back to Toolgate')
  .action((server: string, o) => authLogin(server, w(o)))
where(auth.command('status <server>'))
  .description('whether the server is signed in, since when, until when (never a token)')
  .option('--json', 'print JSON')
  .action((server: string, o) => authStatus(server, w(o), o.json === true))
where(auth.command('logout <server>'))
  .description("delete the server's tokens (revoked at the authorization server where it allows)")
  .action((server: string, o) => authLogout(server, w(o)))

where(program.command('connect <client>'))
  .description('print (or --write) the config snippet that connects claude-desktop | cursor | claude-code | vscode')
  .option('--agent <name>', 'connect as this agent')
  .option('--write', "merge it into the client's config file (a backup is made first)")
  .option('--file <path>', "the client's config file (default: its usual location)")
  .action((client: string, o) => connect(client, o))

where(program.command('import <source>'))
  .description('add the MCP servers of claude-desktop | cursor | claude-code | vscode | FILE to the Toolgate config')
  .option('--dry-run', 'show what would be imported, change nothing')
  .option('--trust', 'do not quarantine the imported servers')
  .option('--move', "then take the imported servers out of the client's file (a backup is made first), so the client reaches them only through Toolgate")
  .option('--secrets', 'move secret-looking env and header values into the secret store; the config gets ${secret:NAME}')
  .action((source: string, o) => importCmd(source, o))

program
  .command('demo')
  .description('serve the web UI with a demo config of real MCP servers (temp data dir)')
  .option('--listen <host:port>', 'listen address', checkListen, '127.0.0.1:8719')
  .action((o) => demo(o))

program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0) process.exit(0)
    process.exit(2)
  }
  fail(e)
})
