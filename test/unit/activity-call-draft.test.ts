// A call's record made from a draft (ActivityRecorder.draftCall, made while the upstream works):
// the same line on disk as a record made in one go, the server's secrets masked in the preview
// and in the error, the digest keyed as always, and record_args as it is when the record is
// written (switched off meanwhile: no preview; switched on: the preview is made then).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHmac, randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { ActivityRecorder, storeLimits, type CallBasics } from '../../src/main/core/activity/recorder'
import { ActivityStore } from '../../src/main/core/activity/store'
import type { ActivityEvent, CallEvent } from '../../src/shared/activity'
import { ServerEntrySchema, type ActivityConfig, type ServerConfig } from '../../src/shared/config-schema'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const SECRET = 'sv-9f3k2m8q7w1e5r4t6y'
const key = randomBytes(32)

function recorder(config: ActivityConfig): { rec: ActivityRecorder; lines: () => CallEvent[]; emitted: ActivityEvent[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-call-draft-'))
  dirs.push(dir)
  const emitted: ActivityEvent[] = []
  const rec = new ActivityRecorder(new ActivityStore(dir, storeLimits(config)), {
    config: () => config,
    emit: (e) => emitted.push(e),
    logger: { warn: () => {} } as never,
    argsKey: key,
    now: () => Date.parse('2026-11-28T02:00:00.000Z'),
  })
  const lines = (): CallEvent[] =>
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean))
      .map((l) => JSON.parse(l) as CallEvent)
  return { rec, lines, emitted }
}

const server: ServerConfig = ServerEntrySchema.parse({ name: 'vault', command: 'node', env: { VAULT_TOKEN: SECRET } })
const basics: CallBasics = {
  tool: 'vault:read_secret',
  serverName: 'vault',
  server,
  variant: 'read',
  args: { path: `kv/${SECRET}`, b: 1, a: 2 },
  mask: (t) => t,
}
const who = { agent: 'coder', client: 'claude-code' }

describe('a call record made from a draft', () => {
  it('is the line a record made in one go would be, with the secrets masked and the digest keyed', () => {
    const config = { retention_days: 30, max_mb: 50, record_args: true }
    const direct = recorder(config)
    direct.rec.call(who, { ...basics, outcome: 'error', durationMs: 1.5, error: `denied for ${SECRET}` })
    const drafted = recorder(config)
    const draft = drafted.rec.draftCall(basics)
    drafted.rec.call(who, { ...basics, outcome: 'error', durationMs: 1.5, error: `denied for ${SECRET}` }, draft)
    const [line] = drafted.lines()
    expect(line).toEqual(direct.lines()[0])
    expect(line).toMatchObject({
      kind: 'call',
      agent: 'coder',
      client: 'claude-code',
      tool: 'vault:read_secret',
      server: 'vault',
      variant: 'read',
      outcome: 'error',
      duration_ms: 1.5,
      args_preview: '{"path":"kv/***","b":1,"a":2}',
      error: 'denied for ***',
    })
    // keys sorted, keyed by the data dir's key: written out here
    expect(line.args_hmac).toBe(createHmac('sha256', key).update(`{"a":2,"b":1,"path":"kv/${SECRET}"}`).digest('hex'))
    expect(JSON.stringify(drafted.lines())).not.toContain(SECRET)
    expect(drafted.emitted).toHaveLength(1)
  })

  it('follows record_args as it is when the record is written', () => {
    const config = { retention_days: 30, max_mb: 50, record_args: true }
    const { rec, lines } = recorder(config)
    const on = rec.draftCall(basics)
    config.record_args = false
    rec.call(who, { ...basics, outcome: 'ok', durationMs: 2 }, on)
    const off = rec.draftCall(basics)
    config.record_args = true
    rec.call(who, { ...basics, outcome: 'ok', durationMs: 3 }, off)
    const [first, second] = lines()
    expect(first.args_preview).toBeUndefined()
    expect(first.args_hmac).toMatch(/^[0-9a-f]{64}$/)
    expect(second.args_preview).toBe('{"path":"kv/***","b":1,"a":2}')
  })
})
