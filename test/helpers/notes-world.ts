// The notebook world of the activity tests: a fixture upstream "notes" (read, write, wipe) with a
// secret in its env and wipe_notebook denied by the config, and the activity files of a data dir.
import fs from 'node:fs'
import path from 'node:path'
import { fixtureEntry, writeJson, type FixtureTool } from './cli'

export const NOTES_TOOLS: FixtureTool[] = [
  { name: 'read_notes', description: 'Read the notes in the notebook', annotations: { readOnlyHint: true } },
  { name: 'write_note', description: 'Write a note into the notebook', annotations: { readOnlyHint: false } },
  { name: 'wipe_notebook', description: 'Erase every note in the notebook', annotations: { readOnlyHint: false, destructiveHint: true } },
]

/** The "notes" server entry (approved, NOTES_TOKEN=secretEnv, wipe_notebook denied), `extra` merged in. */
export function notesServer(tmp: string, secretEnv: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const toolsFile = writeJson(path.join(tmp, 'tools.json'), NOTES_TOOLS)
  return {
    ...fixtureEntry(toolsFile, path.join(tmp, 'calls.log')),
    env: { NOTES_TOKEN: secretEnv },
    quarantined: false,
    disabled_tools: ['wipe_notebook'],
    ...extra,
  }
}

/** Every activity segment of a data dir, concatenated (what is on disk). */
export function activityFiles(dataDir: string): string {
  const dir = path.join(dataDir, 'activity')
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('')
}
