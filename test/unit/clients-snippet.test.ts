import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { currentLaunchCommand, launchCommand } from '../../src/main/core/clients/launch'
import { connectSnippet, snippetText } from '../../src/main/core/clients/snippet'

const npmLaunch = launchCommand({ execPath: '/usr/local/bin/node', binPath: '/opt/toolgate/bin/toolgate.js' })
const appLaunch = launchCommand({
  execPath: '/Applications/Toolgate.app/Contents/MacOS/Toolgate',
  binPath: '/Applications/Toolgate.app/Contents/Resources/app.asar/out/main/cli.js',
  electronApp: true,
})

describe('launchCommand', () => {
  it('npm install: node runs bin/toolgate.js, no env', () => {
    expect(npmLaunch).toEqual({ command: '/usr/local/bin/node', args: ['/opt/toolgate/bin/toolgate.js'] })
  })

  it('packaged app: the app binary runs the bundled CLI as Node', () => {
    expect(appLaunch).toEqual({
      command: '/Applications/Toolgate.app/Contents/MacOS/Toolgate',
      args: ['/Applications/Toolgate.app/Contents/Resources/app.asar/out/main/cli.js'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    })
  })

  it('makes the bin path absolute (the client starts Toolgate from its own cwd)', () => {
    expect(launchCommand({ execPath: 'node', binPath: 'bin/toolgate.js' }).args).toEqual([path.resolve('bin/toolgate.js')])
  })

  it('currentLaunchCommand under plain Node uses this node binary', () => {
    expect(currentLaunchCommand('/x/bin/toolgate.js')).toEqual({ command: process.execPath, args: ['/x/bin/toolgate.js'] })
  })
})

describe('connectSnippet: the exact entry each client needs', () => {
  it('Claude Desktop / Cursor / Claude Code: mcpServers.toolgate running `stdio`', () => {
    for (const client of ['claude-desktop', 'cursor', 'claude-code'] as const) {
      expect(connectSnippet(client, { launch: npmLaunch })).toEqual({
        mcpServers: { toolgate: { command: '/usr/local/bin/node', args: ['/opt/toolgate/bin/toolgate.js', 'stdio'] } },
      })
    }
  })

  it('adds --agent and an absolute --data-dir after `stdio`', () => {
    expect(connectSnippet('cursor', { launch: npmLaunch, agent: 'cursor', dataDir: '/home/ann/.toolgate' })).toEqual({
      mcpServers: {
        toolgate: {
          command: '/usr/local/bin/node',
          args: ['/opt/toolgate/bin/toolgate.js', 'stdio', '--agent', 'cursor', '--data-dir', '/home/ann/.toolgate'],
        },
      },
    })
    const rel = connectSnippet('cursor', { launch: npmLaunch, dataDir: 'tg-data' })
    expect('mcpServers' in rel && rel.mcpServers.toolgate.args.at(-1)).toBe(path.resolve('tg-data'))
  })

  it('packaged app: carries ELECTRON_RUN_AS_NODE=1 in env', () => {
    expect(connectSnippet('claude-desktop', { launch: appLaunch, agent: 'claude' })).toEqual({
      mcpServers: {
        toolgate: {
          command: '/Applications/Toolgate.app/Contents/MacOS/Toolgate',
          args: ['/Applications/Toolgate.app/Contents/Resources/app.asar/out/main/cli.js', 'stdio', '--agent', 'claude'],
          env: { ELECTRON_RUN_AS_NODE: '1' },
        },
      },
    })
  })

  it('VS Code: servers.toolgate with type "stdio"', () => {
    expect(connectSnippet('vscode', { launch: appLaunch })).toEqual({
      servers: {
        toolgate: {
          type: 'stdio',
          command: '/Applications/Toolgate.app/Contents/MacOS/Toolgate',
          args: ['/Applications/Toolgate.app/Contents/Resources/app.asar/out/main/cli.js', 'stdio'],
          env: { ELECTRON_RUN_AS_NODE: '1' },
        },
      },
    })
  })

  it('snippetText is pretty JSON with keys in a stable order', () => {
    expect(snippetText('cursor', { launch: npmLaunch, agent: 'cursor' })).toBe(
      [
        '{',
        '  "mcpServers": {',
        '    "toolgate": {',
        '      "command": "/usr/local/bin/node",',
        '      "args": [',
        '        "/opt/toolgate/bin/toolgate.js",',
        '        "stdio",',
        '        "--agent",',
        '        "cursor"',
        '      ]',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    )
  })

  it('does not share arrays with the launch command', () => {
    const s = connectSnippet('cursor', { launch: npmLaunch, agent: 'a' })
    expect(npmLaunch.args).toEqual(['/opt/toolgate/bin/toolgate.js'])
    expect('mcpServers' in s && s.mcpServers.toolgate.args).not.toBe(npmLaunch.args)
  })
})
