// The command a user types in a shell to run this Toolgate: `toolgate` when that name on PATH is
// this install, else this node and this install's bin (a clone before `npm link` has no `toolgate`).
import fs from 'node:fs'
import path from 'node:path'
import { shellArg } from '../../shared/launch'
import { appRoot } from '../core/paths'

const realpath = (f: string): string | undefined => {
  try {
    return fs.realpathSync(f)
  } catch {
    return undefined
  }
}

/** `toolgate`, or `node …/bin/toolgate.js` (quoted for a POSIX shell) when PATH finds another one or none. */
export function selfCommand(env: NodeJS.ProcessEnv = process.env, bin = path.join(appRoot(), 'bin', 'toolgate.js')): string {
  const own = realpath(bin)
  const names = process.platform === 'win32' ? ['toolgate.cmd', 'toolgate.exe', 'toolgate'] : ['toolgate']
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter((d) => d !== '')) {
    for (const name of names) {
      const found = realpath(path.join(dir, name))
      // the first one PATH finds is the one the shell runs
      if (found !== undefined) return own !== undefined && found === own ? 'toolgate' : [process.execPath, bin].map(shellArg).join(' ')
    }
  }
  return [process.execPath, bin].map(shellArg).join(' ')
}
