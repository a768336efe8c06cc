// What a sandboxed server cannot see, in words, for the window's isolation panel and the CLI's
// permissions line: one text per sandbox, so both surfaces say the same (docs/isolation.md).
import type { IsolationInfo } from './api'

/** The hidden paths of a sandbox, as a list a person reads ("Hidden from it"). */
export function hiddenFromServer(mechanism: IsolationInfo['mechanism'], homeWritable = false): string {
  if (mechanism === 'bwrap') {
    return (
      "Toolgate's data and config, every hidden file and folder of your home (names starting with a dot: ~/.ssh, ~/.config, ~/.gitconfig, …) except its own caches and toolchain, and credential stores in what it is shown; grant a path with sandbox.fs_read. " +
      (homeWritable
        ? 'It may write your home, so only the hidden entries there when it started are covered: one made while it runs (a new ~/.aws, a folder renamed to a dot name) is visible to it until it restarts.'
        : 'What it sees of your home is fixed when it starts: a folder renamed to a dot name while it runs stays visible to it under its old name until it restarts.')
    )
  }
  return "Toolgate's data and config, your keys and credentials (~/.ssh, cloud, registry and git tokens), browser profiles, keychains"
}

/** The same, short, for one line of `toolgate servers list`. */
export function hiddenFromServerShort(mechanism: IsolationInfo['mechanism'], homeWritable = false): string {
  if (mechanism !== 'bwrap') return 'credentials and Toolgate data hidden'
  const hidden = "Toolgate data and your home's dot files and folders hidden (grant with sandbox.fs_read)"
  return homeWritable
    ? `${hidden}, those there at its start only: it may write your home (a dot folder made later is seen until it restarts)`
    : `${hidden}, as at its start`
}
