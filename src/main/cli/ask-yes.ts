// A yes/no question on the terminal: asked on stderr (stdout may carry output), answered on stdin.
import { createInterface } from 'node:readline/promises'

/** True when the person answers y or yes (any case); anything else, including an empty line, is no. */
export async function askYes(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim())
  } finally {
    rl.close()
  }
}
