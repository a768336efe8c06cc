// The shell command the demo banner prints: `toolgate` only when PATH finds this install under
// that name, otherwise node and this install's bin, so the line runs as printed.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { selfCommand } from '../../src/main/cli/self-command'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'self-command-'))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const bin = path.join(root, 'install', 'bin', 'toolgate.js')
fs.mkdirSync(path.dirname(bin), { recursive: true })
fs.writeFileSync(bin, '#!/usr/bin/env node\n', { mode: 0o755 })
const linked = path.join(root, 'linked')
fs.mkdirSync(linked)
fs.symlinkSync(bin, path.join(linked, 'toolgate'))
const other = path.join(root, 'other')
fs.mkdirSync(other)
fs.writeFileSync(path.join(other, 'toolgate'), '#!/bin/sh\n', { mode: 0o755 })
const empty = path.join(root, 'empty')
fs.mkdirSync(empty)

describe.skipIf(process.platform === 'win32')('selfCommand', () => {
  it('is `toolgate` when the first toolgate on PATH is this install (npm link, npm i -g)', () => {
    expect(selfCommand({ PATH: [empty, linked, other].join(path.delimiter) }, bin)).toBe('toolgate')
  })
  it('is this node and this bin when PATH has no toolgate (a clone before npm link)', () => {
    expect(selfCommand({ PATH: empty }, bin)).toBe(`${process.execPath} ${bin}`)
    expect(selfCommand({}, bin)).toBe(`${process.execPath} ${bin}`)
  })
  it('is this node and this bin when the first toolgate on PATH is another install', () => {
    expect(selfCommand({ PATH: [other, linked].join(path.delimiter) }, bin)).toBe(`${process.execPath} ${bin}`)
  })
  it('quotes a path with a space for the shell', () => {
    const spaced = path.join(root, 'my install', 'toolgate.js')
    fs.mkdirSync(path.dirname(spaced))
    fs.writeFileSync(spaced, '')
    expect(selfCommand({ PATH: empty }, spaced)).toBe(`${process.execPath} '${spaced}'`)
  })
})
