// `toolgate demo` (npm run demo): a newcomer sees every feature in a minute. Serves the web UI
// on a temp data dir with real MCP servers from npm: everything, filesystem (on a temp folder,
// write_file and move_file locked by config), memory (one tool switched off by the user) and
// sequential-thinking waiting in quarantine.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { startCore, type Core } from '../core/core'
import { appRoot, parseListen } from '../core/paths'
import { onShutdown } from './shutdown'
import { globalModules } from './app'
import { selfCommand } from './self-command'
import { shellArg } from '../../shared/launch'

/** How to start one of the example servers: its installed dist/index.js with this node, else through npx. */
export function exampleServer(
  pkg: string,
  roots = [appRoot(), process.cwd(), path.dirname(globalModules())],
): { command: string; args: string[]; local: boolean } {
  try {
    const main = require.resolve(`${pkg}/package.json`, { paths: roots })
    return { command: process.execPath, args: [path.join(path.dirname(main), 'dist', 'index.js')], local: true }
  } catch {
    // not installed next to this Toolgate (an npm install of the CLI has no dev packages): fetch it with npx
    return { command: 'npx', args: ['-y', pkg], local: false }
  }
}

export async function demo(o: { listen: string }): Promise<void> {
  // The data dir holds the keys, so upstreams never see it (docs/isolation.md): the files the
  // servers work on live beside it and are granted to them.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-demo-'))
  // The temp dir goes on every way out: Ctrl+C, SIGTERM, an error, a normal exit.
  const removeTemp = (): void => fs.rmSync(root, { recursive: true, force: true })
  process.on('exit', removeTemp)
  const dataDir = path.join(root, 'data')
  // Ctrl+C and SIGTERM while the demo still starts too: by default they end the process without
  // its 'exit' handlers, so the temp dir stayed. What started is stopped, then the dir goes.
  let started: Core | undefined
  onShutdown(async () => {
    await started?.stop()
    removeTemp()
  })
  let core: Core
  let viaNpx: string[]
  try {
    ;({ core, viaNpx } = await startDemo(root, dataDir, o.listen))
  } catch (e) {
    removeTemp()
    throw e
  }
  started = core
  const key = core.adminKey.key
  const moved = !core.url?.endsWith(`:${parseListen(o.listen).port}`)
  // The banner first: the logs go to the log file, not above it.
  process.stdout.write(
    [
      '',
      'Toolgate demo is running (Ctrl+C stops it and deletes the temp data).',
      `  open the web UI:  ${core.url}/#key=${key}`,
      `  MCP endpoint:     ${core.url}/mcp   (Authorization: Bearer ${key})`,
      ...(moved ? [`  (${o.listen} is in use, so the demo took a free port)`] : []),
      `  data dir:         ${dataDir}`,
      `  log:              ${path.join(dataDir, 'logs', 'toolgate.log')}`,
      ...(viaNpx.length > 0
        ? [
            `  ${viaNpx.join(', ')} ${viaNpx.length === 1 ? 'is' : 'are'} not installed next to this Toolgate: started with npx -y (needs the npm registry; the first start takes a few seconds).`,
          ]
        : []),
      '',
      'What to look at: filesystem has write_file/move_file locked by config (no toggle),',
      "every server runs isolated (filesystem may write only its folder, memory only its file's),",
      'memory:delete_entities is switched off by the user, sequential-thinking waits in quarantine',
      '(Inspect, then Approve server). Search "write a file" with "Include locked tools" on.',
      `Try it from a shell: ${selfCommand()} search "write a file" --include-disabled --data-dir ${shellArg(dataDir)}`,
      '',
    ].join('\n') + '\n',
  )
  await core.settled(60000)
  await core.api.toolAction('memory', 'delete_entities', 'disable').catch(() => {})
}

async function startDemo(root: string, dataDir: string, listen: string): Promise<{ core: Core; viaNpx: string[] }> {
  const files = path.join(root, 'files')
  const memoryDir = path.join(root, 'memory')
  for (const d of [dataDir, files, memoryDir]) fs.mkdirSync(d)
  fs.writeFileSync(path.join(files, 'hello.txt'), 'Hello from the Toolgate demo.\n')
  const everything = exampleServer('@modelcontextprotocol/server-everything')
  const filesystem = exampleServer('@modelcontextprotocol/server-filesystem')
  const memory = exampleServer('@modelcontextprotocol/server-memory')
  const thinking = exampleServer('@modelcontextprotocol/server-sequential-thinking')
  const config = {
    api_key: randomBytes(18).toString('base64url'),
    mcpServers: {
      everything: { command: everything.command, args: [...everything.args, 'stdio'], quarantined: false },
      filesystem: {
        command: filesystem.command,
        args: [...filesystem.args, files],
        quarantined: false,
        disabled_tools: ['write_file', 'move_file'],
        // no network, unless npx must download it
        sandbox: { fs_write: [files], network: !filesystem.local },
      },
      memory: {
        command: memory.command,
        args: memory.args,
        env: { MEMORY_FILE_PATH: path.join(memoryDir, 'memory.jsonl') },
        quarantined: false,
        sandbox: { fs_write: [memoryDir] },
      },
      'sequential-thinking': { command: thinking.command, args: thinking.args },
    },
  }
  const viaNpx = Object.entries({ everything, filesystem, memory, 'sequential-thinking': thinking })
    .filter(([, s]) => !s.local)
    .map(([name]) => name)
  const configPath = path.join(dataDir, 'mcp_config.json')
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2))
  // 8719 taken (a running Toolgate, another demo): fall back to a free port rather than fail.
  const core = await startCore({ configPath, dataDir, listen, serveHttp: true, fallbackPort: true, kind: 'serve', logToStderr: false, temporaryDataDir: true })
  return { core, viaNpx }
}
