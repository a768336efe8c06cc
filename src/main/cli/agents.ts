// `toolgate agents token|list|tokens|revoke|ask-in-client`: the agents of the config, their tokens
// (printed once, stored as hashes) and whether their questions may go to their own client.
import type { Command } from 'commander'
import { withOperator, type Where } from './control-client'
import { UsageError } from './errors'
import { say } from './output'
import { printAgentTokens } from './print'
import { printAgentViews } from './print-agents'

export function registerAgents(program: Command, where: (c: Command) => Command, w: (o: { config?: string; dataDir?: string }) => Where): void {
  const agents = program.command('agents').description('agent identities')
  where(agents.command('token <name>'))
    .description('create a token for an agent from the config (printed once; only its hash is stored)')
    .action(async (name: string, o) => {
      await withOperator(w(o), async (op) => {
        say(await op.createAgentToken(name))
      })
    })
  where(agents.command('list'))
    .description('each agent of the config and each local client: scope, tokens, callable tools, context cost (--details: reach per server and why not more)')
    .option('--json', 'print JSON')
    .option('--details', 'also print, per agent, what it can reach on each server and why the rest is out of reach')
    .action(async (o) => {
      await withOperator(w(o), async (op) => {
        printAgentViews((await op.api.agents()).agents, o.json === true, o.details === true)
      })
    })
  where(agents.command('tokens <name>'))
    .description("list an agent's tokens: id, created, last used (never the token)")
    .option('--json', 'print JSON')
    .action(async (name: string, o) => {
      await withOperator(w(o), async (op) => {
        printAgentTokens(name, (await op.api.agentTokens(name)).tokens, o.json === true)
      })
    })
  where(agents.command('revoke <name> [token_id]'))
    .description('revoke one token of an agent, or all of them with --all; open sessions are refused from their next request')
    .option('--all', 'revoke every token of the agent')
    .action(async (name: string, id: string | undefined, o) => {
      if ((id === undefined) === (o.all !== true)) throw new UsageError('give either a TOKEN_ID (see `toolgate agents tokens NAME`) or --all')
      await withOperator(w(o), async (op) => {
        say((await op.api.revokeAgentTokens(name, id)).message)
      })
    })

  where(agents.command('ask-in-client <name> <on|off>'))
    .description(
      'let questions for this agent (confirmations, access requests) go to its own client too, when it can show them; only where a person answers there, never a model (off by default; the window and tray still ask)',
    )
    .action(async (name: string, value: string, o) => {
      if (value !== 'on' && value !== 'off') throw new UsageError(`say on or off, not "${value}": toolgate agents ask-in-client ${name} on`)
      await withOperator(w(o), async (op) => {
        say((await op.api.setAskInClient(name, value === 'on')).message)
      })
    })
}
