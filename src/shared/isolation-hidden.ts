// What a sandboxed server cannot see, in words, for the window's isolation panel and the CLI's
// permissions line: one text per sandbox, so both surfaces say the same (docs/isolation.md).
import type { IsolationInfo } from './api'

/** The hidden paths of a sandbox, as a list a person reads ("Hidden from it"). */
export function hiddenFromServer(mechanism: IsolationInfo['mechanism']): string {
  if (mechanism === 'bwrap') {
    return "Toolgate's data and config, every hidden file and folder of your home (names starting with a dot: ~/.ssh, ~/.config, ~/.gitconfig, …) except its own caches and toolchain, and credential stores in what it is shown; grant a path with sandbox.fs_read"
  }
  return "Toolgate's data and config, your keys and credentials (~/.ssh, cloud, registry and git tokens), browser profiles, keychains"
}

/** The same, short, for one line of `toolgate servers list`. */
export function hiddenFromServerShort(mechanism: IsolationInfo['mechanism']): string {
  return mechanism === 'bwrap'
    ? "Toolgate data and your home's dot files and folders hidden (grant with sandbox.fs_read)"
    : 'credentials and Toolgate data hidden'
}
