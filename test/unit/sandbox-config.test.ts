// The `sandbox` key of a server entry (clear errors for the operator), how the machine's sandbox
// is detected (with the reason when there is none), and what "not isolated" looks like.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig, ConfigError } from '../../src/main/core/config/load'
import { explainBwrapFailure, sandboxSupport } from '../../src/main/core/upstream/sandbox/detect'
import { isolationOf } from '../../src/main/core/upstream/sandbox/view'
import type { ServerConfig } from '../../src/shared/config-schema'

function problem(server: Record<string, unknown>): string {
  try {
    parseConfig('/x/mcp_config.json', { mcpServers: { s: { command: 'node', ...server } } })
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return (e as Error).message
  }
  return 'valid'
}

describe('config: sandbox', () => {
  it('accepts false, true, and an object with fs_read, fs_write and network', () => {
    expect(problem({ sandbox: false })).toBe('valid')
    expect(problem({ sandbox: true })).toBe('valid')
    expect(problem({ sandbox: { fs_read: ['/etc/app'], fs_write: ['~/notes', '~'], network: false } })).toBe('valid')
    expect(problem({ sandbox: {} })).toBe('valid')
  })

  it('names the key and the problem when something is wrong', () => {
    expect(problem({ sandbox: { fs_write: ['notes'] } })).toBe(
      '/x/mcp_config.json: at $.mcpServers.s.sandbox.fs_write[0]: use an absolute path or one starting with "~/" (a relative path would depend on where Toolgate runs)',
    )
    expect(problem({ sandbox: { network: 'no' } })).toMatch(
      /at \$\.mcpServers\.s\.sandbox\.network: network must be true \(open\), false \(none\) or a list of the hosts it may reach/,
    )
    expect(problem({ sandbox: { fs_read: '/etc' } })).toMatch(/sandbox\.fs_read: fs_read must be a list of paths/)
    // a typo in a security setting must not be ignored silently (network would stay on)
    expect(problem({ sandbox: { netwrok: false } })).toMatch(/at \$\.mcpServers\.s\.sandbox: unknown key\(s\): netwrok$/)
    expect(problem({ sandbox: 'off' })).toMatch(/sandbox must be false \(no isolation\) or an object/)
  })

  it('loopback: a list of ports', () => {
    expect(problem({ sandbox: { loopback: [5432, 6379] } })).toBe('valid')
    expect(problem({ sandbox: { loopback: [0] } })).toMatch(/at \$\.mcpServers\.s\.sandbox\.loopback\[0\]: a port is 1 to 65535$/)
    expect(problem({ sandbox: { loopback: [70000] } })).toMatch(/at \$\.mcpServers\.s\.sandbox\.loopback\[0\]: a port is 1 to 65535$/)
    expect(problem({ sandbox: { loopback: ['5432'] } })).toMatch(/sandbox\.loopback\.0: each loopback port must be a number$/)
    expect(problem({ sandbox: { loopback: 5432 } })).toMatch(/sandbox\.loopback: loopback must be a list of port numbers/)
  })

  it('refuses sandbox permissions on an HTTP server (Toolgate does not run it)', () => {
    expect(problem({ command: undefined, url: 'https://example.com/mcp', sandbox: { network: false } })).toMatch(/sandbox applies only to stdio servers/)
    expect(problem({ command: undefined, url: 'https://example.com/mcp', sandbox: false })).toBe('valid')
  })
})

describe('detection of the sandbox', () => {
  const saved = process.env.TOOLGATE_BWRAP
  afterEach(() => {
    if (saved === undefined) delete process.env.TOOLGATE_BWRAP
    else process.env.TOOLGATE_BWRAP = saved
  })

  it('finds bwrap on this machine by running it', () => {
    delete process.env.TOOLGATE_BWRAP
    expect(sandboxSupport('linux')).toMatchObject({ available: true, mechanism: 'bwrap', reason: null })
  })

  it('without bwrap: not available, with the reason and how to fix it', () => {
    process.env.TOOLGATE_BWRAP = '/nonexistent/bwrap'
    const s = sandboxSupport('linux')
    expect(s).toMatchObject({ available: false, mechanism: null })
    expect(s.reason).toMatch(/not found at \/nonexistent\/bwrap/)
  })

  it('a bwrap that cannot build a sandbox (user namespaces off) is not trusted: the probe really runs it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-fake-bwrap-'))
    const fake = path.join(dir, 'bwrap')
    fs.writeFileSync(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces" >&2\nexit 1\n',
      {
        mode: 0o755,
      },
    )
    try {
      process.env.TOOLGATE_BWRAP = fake
      const s = sandboxSupport('linux')
      expect(s.available).toBe(false)
      expect(s.reason).toMatch(/^user namespaces are not available to this user.*No permissions to creating new namespace/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('explains the usual kernel switches', () => {
    const sysctl = (f: string) => (f.endsWith('unprivileged_userns_clone') ? '0' : null)
    expect(explainBwrapFailure('bwrap: setting up uid map: Permission denied\n', sysctl)).toBe(
      'user namespaces are not available to this user (kernel.unprivileged_userns_clone=0), so bubblewrap cannot build a sandbox: bwrap: setting up uid map: Permission denied',
    )
    expect(explainBwrapFailure("bwrap: Can't mount proc on /newroot/proc: Device or resource busy", () => null)).toMatch(/^bubblewrap failed its self-test: /)
  })

  it('Windows has none', () => {
    expect(sandboxSupport('win32')).toEqual({ available: false, mechanism: null, binary: null, reason: 'Windows has no sandbox Toolgate can use yet' })
  })
})

describe('what every surface shows', () => {
  const stdio = { name: 's', command: 'node', args: ['x.js'], protocol: 'auto', enabled: true, trust: 'manual' } as ServerConfig
  const none = { available: false, mechanism: null, binary: null, reason: 'Windows has no sandbox Toolgate can use yet' } as const

  it('on a machine without a sandbox: not isolated, a risk, with the reason and the permissions it would get', () => {
    const iso = isolationOf({ ...stdio, sandbox: { fs_write: ['/srv/x'], network: false } }, none)
    expect(iso).toMatchObject({ isolated: false, risk: true, reason: 'no sandbox on this machine: Windows has no sandbox Toolgate can use yet' })
    expect(iso.profile).toMatchObject({ network: false, fs_read: [] })
    expect(iso.profile?.fs_write).toContain('/srv/x')
  })

  it('an HTTP server is remote: not isolated, but not a risk Toolgate could fix', () => {
    const iso = isolationOf(
      { ...stdio, command: undefined, url: 'https://example.com/mcp' },
      { available: true, mechanism: 'bwrap', binary: '/usr/bin/bwrap', reason: null },
    )
    expect(iso).toEqual({ isolated: false, risk: false, reason: expect.stringMatching(/^remote \(HTTP\) server/), profile: null })
  })
})
