// What Inspect lets an npx/uvx server reach (its package registry, a mirror where the user set
// one) and which Inspect failures offer "Inspect with network" (network ones only).
import { afterEach, describe, expect, it } from 'vitest'
import { launcherOf, looksLikeNetworkFailure, npmRegistry, registryAccess } from '../../src/main/core/upstream/sandbox/registries'

describe('package runners', () => {
  it('npx, npm exec, bunx, pnpm dlx download from npm; uvx, uv tool run, pipx run from the Python index; others none', () => {
    expect(launcherOf({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] })).toBe('npm')
    expect(launcherOf({ command: '/usr/local/bin/npx' })).toBe('npm')
    expect(launcherOf({ command: 'npm', args: ['exec', 'x'] })).toBe('npm')
    expect(launcherOf({ command: 'pnpm', args: ['dlx', 'x'] })).toBe('npm')
    expect(launcherOf({ command: 'uvx', args: ['mcp-server-fetch'] })).toBe('pypi')
    expect(launcherOf({ command: 'uv', args: ['tool', 'run', 'x'] })).toBe('pypi')
    expect(launcherOf({ command: 'node', args: ['server.js'] })).toBe(null)
    expect(launcherOf({ command: 'npm', args: ['start'] })).toBe(null)
  })
})

describe('the registry Inspect may reach', () => {
  const saved = { ...process.env }
  afterEach(() => {
    for (const k of ['npm_config_registry', 'NPM_CONFIG_REGISTRY']) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
  })

  it('npm: the registry npm itself names (here: `npm config get registry`), and the sandbox is pointed at it (~/.npmrc is hidden)', () => {
    const access = registryAccess('npm')
    const registry = new URL(npmRegistry())
    expect(access?.hosts).toEqual([`${registry.hostname}:${registry.port || 443}`])
    expect(access?.env.npm_config_registry).toBe(npmRegistry())
    expect(access?.label).toBe(`the npm registry (${registry.hostname})`)
  })

  it('npm: a mirror, also on another port; a mirror on this machine is forwarded by port, not proxied', () => {
    process.env.npm_config_registry = 'https://npm.mirror.example:8443/repository/npm/'
    expect(registryAccess('npm')).toMatchObject({
      hosts: ['npm.mirror.example:8443'],
      loopback: [],
      env: { npm_config_registry: 'https://npm.mirror.example:8443/repository/npm/' },
    })
    process.env.npm_config_registry = 'http://localhost:4873/'
    expect(registryAccess('npm')).toMatchObject({ hosts: [], loopback: [4873], env: { NO_PROXY: 'localhost,127.0.0.1' } })
  })

  it('pypi: pypi.org and files.pythonhosted.org, or the index of UV_DEFAULT_INDEX / UV_INDEX_URL / PIP_INDEX_URL', () => {
    expect(registryAccess('pypi', {})).toMatchObject({ hosts: ['pypi.org:443', 'files.pythonhosted.org:443'], env: {} })
    expect(registryAccess('pypi', { UV_INDEX_URL: 'https://pypi.corp.example/simple' })).toMatchObject({
      hosts: ['pypi.corp.example:443'],
      env: { UV_DEFAULT_INDEX: 'https://pypi.corp.example/simple' },
    })
    expect(registryAccess(null)).toBeNull()
  })
})

describe('which Inspect failures were about the network', () => {
  it('offers the network for downloads that could not happen', () => {
    for (const text of [
      'process exited with code 1: npm error code EAI_AGAIN',
      'process exited with code 1: npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org',
      'process exited with code 2: error: Failed to fetch: `https://github.com/astral-sh/python-build-standalone/...`',
      'process exited with code 1: curl: (56) CONNECT tunnel failed, response 403',
      'process exited with code 3: cannot download the package: denied: ENETUNREACH connect ENETUNREACH 104.16.0.35:443',
    ]) {
      expect(looksLikeNetworkFailure(text), text).toBe(true)
    }
  })

  it('not for a missing command, a missing secret, a crash or a slow handshake', () => {
    for (const text of [
      'spawn uvx ENOENT (no such command on PATH)',
      'inspecting server "x" failed: secret GITHUB_TOKEN is not set: toolgate secrets set GITHUB_TOKEN',
      'inspecting server "x" failed: environment variable HOME_TOKEN is not set in Toolgate\'s environment (the config asks for ${env:HOME_TOKEN})',
      "process exited with code 1: Error: Cannot find module '/srv/server.js'",
      'did not complete the MCP handshake within 30000 ms (stdio)',
    ]) {
      expect(looksLikeNetworkFailure(text), text).toBe(false)
    }
  })
})
