// Command-line options of the tray app (`toolgate app [--config F] [--data-dir D] [--listen H:P] [--hidden]`).
export interface AppArgs {
  configPath?: string
  dataDir?: string
  listen?: string
  /** start in the tray without showing the window */
  hidden: boolean
}

export function parseAppArgs(argv: readonly string[]): AppArgs {
  const out: AppArgs = { hidden: false }
  const value = (i: number, flag: string): [string | undefined, number] => {
    const a = argv[i]
    if (a.startsWith(`${flag}=`)) return [a.slice(flag.length + 1), i]
    return [argv[i + 1], i + 1]
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--hidden') out.hidden = true
    else if (a === '--config' || a.startsWith('--config=')) [out.configPath, i] = value(i, '--config')
    else if (a === '--data-dir' || a.startsWith('--data-dir=')) [out.dataDir, i] = value(i, '--data-dir')
    else if (a === '--listen' || a.startsWith('--listen=')) [out.listen, i] = value(i, '--listen')
  }
  return out
}
