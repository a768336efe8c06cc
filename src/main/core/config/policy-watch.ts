// Watches the organisation's policy file like the config: the directories of
// the machine-wide file and of TOOLGATE_POLICY's, so a policy written, replaced (rename), changed
// or removed while Toolgate runs applies at once, also when its folder is made after the start. Each change is read again from scratch (which
// file applies may change too) and handed over when its text differs.
import path from 'node:path'
import { machinePolicyFile, POLICY_ENV, policyLocation, readPolicy, type PolicyState } from './policy'
import { watchFiles } from './link-watch'

export interface PolicyWatcher {
  close(): Promise<void>
}

export function watchPolicy(
  first: PolicyState | null,
  onChange: (state: PolicyState | null) => void,
  env: NodeJS.ProcessEnv = process.env,
  machine = machinePolicyFile(process.platform, env),
  debounceMs = 150,
): PolicyWatcher {
  const files = [machine, ...(env[POLICY_ENV] ? [path.resolve(env[POLICY_ENV])] : [])]
  let last = key(first)
  let timer: NodeJS.Timeout | null = null
  const reload = (): void => {
    timer = null
    const next = readPolicy(policyLocation(env, machine))
    const k = key(next)
    if (k === last) return
    last = k
    onChange(next)
  }
  const schedule = (): void => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(reload, debounceMs)
  }
  // through the folders; a policy folder made later, replaced, or a linked one swapped to another
  // (link-watch.ts: watched in its parent) is watched anew and read again
  const watcher = watchFiles(files, schedule)
  return {
    async close() {
      if (timer) clearTimeout(timer)
      await watcher.close()
    },
  }
}

function key(s: PolicyState | null): string {
  return s ? `${s.file}\u0000${s.text ?? ''}\u0000${s.error ?? ''}` : ''
}
