// The README and docs/*.md keep their promises: every relative link points to a file that exists
// (and its #anchor to a heading there, slugged as GitHub does), and every `toolgate …` command
// they show exists in the built CLI, subcommand by subcommand, with the options it uses. The
// checkers are tried on small broken examples first, so they are known to catch what they must.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import GithubSlugger from 'github-slugger'
import { Lexer } from 'marked'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, BIN, ROOT } from '../helpers/cli'

const run = promisify(execFile)

/** README.md and every page under docs/, relative to the root. */
function docFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f))
  return ['README.md', ...docs.sort()]
}

// ---- walking marked's tokens --------------------------------------------------------------

interface Node {
  type: string
  text?: string
  href?: string
  depth?: number
  lang?: string
  tokens?: Node[]
  items?: Node[]
  /** a table's header cells (a cell's own `header` is a boolean) */
  header?: Node[] | boolean
  rows?: Node[][]
}

function children(n: Node): Node[] {
  const header = Array.isArray(n.header) ? n.header : []
  return [...(n.tokens ?? []), ...(n.items ?? []), ...header, ...(n.rows ?? []).flat()]
}

/** The text a heading shows (code spans and links by their text, emphasis dropped), as GitHub slugs it. */
function plain(n: Node): string {
  const kids = n.tokens ?? []
  if (kids.length === 0) return n.type === 'codespan' || n.type === 'text' || n.type === 'escape' ? (n.text ?? '') : ''
  return kids.map(plain).join('')
}

/** Visits every token, telling the visitor the text of the `##` section it is in. */
function walk(markdown: string, visit: (n: Node, section: string) => void): void {
  let section = ''
  const go = (n: Node): void => {
    if (n.type === 'heading' && n.depth === 2) section = plain(n)
    visit(n, section)
    children(n).forEach(go)
  }
  ;(Lexer.lex(markdown) as unknown as Node[]).forEach(go)
}

function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger()
  const out = new Set<string>()
  walk(markdown, (n) => {
    if (n.type === 'heading') out.add(slugger.slug(plain(n)))
  })
  return out
}

// ---- links ----------------------------------------------------------------------------------

const anchorCache = new Map<string, Set<string>>()
function anchorsIn(file: string): Set<string> {
  let a = anchorCache.get(file)
  if (!a) {
    a = anchorsOf(fs.readFileSync(file, 'utf8'))
    anchorCache.set(file, a)
  }
  return a
}

/** Problems with the relative links of `markdown`, read as the file `file` (relative to the root). */
function linkProblems(file: string, markdown: string): string[] {
  const problems: string[] = []
  const own = anchorsOf(markdown)
  walk(markdown, (n) => {
    if ((n.type !== 'link' && n.type !== 'image') || n.href === undefined) return
    const href = n.href
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return // https:, mailto:, …
    const [target, anchor] = href.split('#', 2)
    const abs = target === '' ? path.join(ROOT, file) : path.resolve(ROOT, path.dirname(file), decodeURIComponent(target))
    if (path.relative(ROOT, abs).startsWith('..')) return problems.push(`${file}: ${href} leaves the repository`)
    if (target !== '' && !fs.existsSync(abs)) return problems.push(`${file}: ${href} → ${path.relative(ROOT, abs)} does not exist`)
    if (anchor === undefined || anchor === '') return
    if (!abs.endsWith('.md')) return problems.push(`${file}: ${href} has an anchor but is not a markdown page`)
    const anchors = target === '' ? own : anchorsIn(abs)
    if (!anchors.has(anchor)) problems.push(`${file}: ${href}: no heading "#${anchor}" in ${path.relative(ROOT, abs)}`)
  })
  return problems
}

// ---- CLI commands -----------------------------------------------------------------------------

/** `toolgate …` commands shown in code spans and shell blocks; contract.md's round-three names are not built yet. */
function commandsIn(file: string, markdown: string): string[] {
  const out: string[] = []
  walk(markdown, (n, section) => {
    if (file.endsWith('contract.md') && /^8\b/.test(section)) return
    if (n.type === 'codespan' && n.text?.startsWith('toolgate ')) out.push(n.text)
    if (n.type === 'code' && (n.lang === 'bash' || n.lang === 'sh' || !n.lang)) {
      for (const line of (n.text ?? '').split('\n')) {
        const cmd = line.replace(/^\s*\$?\s*/, '').replace(/\s+#\s.*$/, '')
        if (cmd.startsWith('toolgate ')) out.push(cmd)
      }
    }
  })
  return out.map((c) => c.replace(/\\\|/g, '|').replace(/&lt;/g, '<').replace(/&gt;/g, '>'))
}

interface Help {
  commands: string[]
  options: string[]
}

type HelpOf = (cmdPath: string[]) => Promise<Help>

/** `toolgate PATH --help`, parsed: the subcommands and the option flags it lists. */
function parseHelp(text: string): Help {
  const commands: string[] = []
  const options: string[] = []
  let part = ''
  for (const line of text.split('\n')) {
    if (/^Commands:/.test(line)) part = 'commands'
    else if (/^Options:/.test(line)) part = 'options'
    else if (/^\S/.test(line)) part = ''
    const m = /^ {2}(\S.*)$/.exec(line)
    if (!m) continue
    if (part === 'commands') commands.push(m[1].split(/\s/)[0])
    if (part === 'options') for (const f of m[1].split(/\s{2,}/)[0].matchAll(/--?[A-Za-z][\w-]*/g)) options.push(f[0])
  }
  return { commands: commands.filter((c) => c !== 'help'), options }
}

const WORD = /^[a-z][a-z-]*$/

/** Problems with one command line as the docs show it, against the CLI's own help. */
async function commandProblems(cmd: string, helpOf: HelpOf): Promise<string[]> {
  const words = cmd.split(/\s+/).slice(1)
  let at: string[] = []
  let i = 0
  for (; i < words.length; i++) {
    const help = await helpOf(at)
    if (help.commands.length === 0) break
    const alternatives = words[i].replace(/^[[(]+|[\])]+$/g, '').split('|')
    if (!WORD.test(alternatives[0])) break
    const unknown = alternatives.filter((a) => WORD.test(a) && !help.commands.includes(a))
    if (unknown.length)
      return [`\`${cmd}\`: no subcommand ${unknown.map((u) => `"${u}"`).join(', ')} under "toolgate ${at.join(' ')}" (it has ${help.commands.join(', ')})`]
    at = [...at, alternatives[0]]
    // the other alternatives (`list|enable|…`) exist; only their shared options are checked below
  }
  const help = await helpOf(at)
  // a group with a default subcommand (`toolgate requests --json`) takes its subcommands' options
  const subOptions = await Promise.all(help.commands.map(async (c) => (await helpOf([...at, c])).options))
  const known = new Set([...help.options, ...subOptions.flat(), '--help', '-h'])
  const flags = [
    ...words
      .slice(i)
      .join(' ')
      .matchAll(/(?:^|[\s[|(])(--?[A-Za-z][\w-]*)/g),
  ].map((m) => m[1])
  return flags.filter((f) => !known.has(f)).map((f) => `\`${cmd}\`: "toolgate ${at.join(' ')}" has no option ${f}`)
}

/** The built CLI's help, cached per command path. */
function cliHelp(): HelpOf {
  const cache = new Map<string, Promise<Help>>()
  return (cmdPath) => {
    const key = cmdPath.join(' ')
    let h = cache.get(key)
    if (!h) {
      h = run(process.execPath, [BIN, ...cmdPath, '--help'], { cwd: ROOT }).then((r) => parseHelp(r.stdout))
      cache.set(key, h)
    }
    return h
  }
}

// ---- the checkers on examples ---------------------------------------------------------------------

/** A tiny CLI for the examples: `toolgate servers list|approve`, `toolgate requests list` (default). */
const FAKE: Record<string, Help> = {
  '': { commands: ['servers', 'requests', 'search'], options: ['-V', '--version'] },
  servers: { commands: ['list', 'approve'], options: [] },
  'servers list': { commands: [], options: ['--json', '--config'] },
  'servers approve': { commands: [], options: ['--hash', '--for'] },
  requests: { commands: ['list'], options: [] },
  'requests list': { commands: [], options: ['--status'] },
  search: { commands: [], options: ['--limit'] },
}
const fakeHelp: HelpOf = async (p) => FAKE[p.join(' ')] ?? { commands: [], options: [] }

describe('the checkers', () => {
  it.each([
    ['a missing file', 'docs/x.md', 'See [the thing](nothing-here.md).'],
    ['a missing anchor in another page', 'docs/x.md', 'See [its keys](config.md#no-such-section).'],
    ['a missing anchor in the same page', 'docs/x.md', '# Title\n\nSee [below](#below).'],
    ['a link out of the repository', 'docs/x.md', 'See [the notes](../../elsewhere.md).'],
    ['a missing image', 'README.md', '![Servers](docs/screenshots/nope.png)'],
  ])('finds %s', (_what, file, md) => {
    expect(linkProblems(file, md)).toHaveLength(1)
  })

  it('passes links that resolve, anchors slugged as GitHub does', () => {
    const md =
      '# Config (`mcp_config.json`)\n\n## Which Node\n\n[a](#config-mcp_configjson) [b](install.md#which-node) [c](../README.md) [d](https://example.com/x#y) [e](screenshots/servers.png)'
    expect(linkProblems('docs/x.md', md)).toEqual([])
  })

  it.each([
    ['an unknown subcommand', 'toolgate servers forget NAME'],
    ['an unknown top-level command', 'toolgate frobnicate'],
    ['one bad alternative', 'toolgate servers list|forget NAME'],
    ['an option the command does not have', 'toolgate servers approve NAME --all'],
    ['an option of another command', 'toolgate search QUERY --json'],
  ])('finds %s', async (_what, cmd) => {
    expect(await commandProblems(cmd, fakeHelp)).toHaveLength(1)
  })

  it.each([
    'toolgate servers approve NAME --hash H --for 1h',
    'toolgate servers list|approve NAME',
    'toolgate requests [--status S]',
    'toolgate search QUERY [--limit N]',
    'toolgate --version',
  ])('passes %s', async (cmd) => {
    expect(await commandProblems(cmd, fakeHelp)).toEqual([])
  })

  it("reads commands from code spans, shell blocks and tables, not from the contract's round three", () => {
    const md =
      'Run `toolgate serve`.\n\n```bash\ntoolgate stdio   # a comment\nnpm ci\n```\n\n| a | b |\n|---|---|\n| `toolgate tools list\\|diff X` | x |\n\n## 8. Round three\n\n`toolgate questions list`\n'
    expect(commandsIn('docs/contract.md', md)).toEqual(['toolgate serve', 'toolgate stdio', 'toolgate tools list|diff X'])
  })
})

// ---- the real docs ---------------------------------------------------------------------------

describe('README.md and docs/', () => {
  const files = docFiles()

  it('has the pages the README points to', () => {
    expect(files).toContain('docs/contract.md')
    expect(files).toContain('docs/architecture.md')
    expect(files.length).toBeGreaterThan(10)
  })

  it('every relative link and #anchor resolves', () => {
    const problems = files.flatMap((f) => linkProblems(f, fs.readFileSync(path.join(ROOT, f), 'utf8')))
    expect(problems).toEqual([])
  })

  describe('every `toolgate …` command shown exists in the built CLI', () => {
    let helpOf: HelpOf
    beforeAll(() => {
      assertBuilt()
      helpOf = cliHelp()
    })

    it('with its subcommands and options', async () => {
      const shown = [...new Set(files.flatMap((f) => commandsIn(f, fs.readFileSync(path.join(ROOT, f), 'utf8'))))]
      expect(shown.length).toBeGreaterThan(40)
      const problems: string[] = []
      // a few at a time: each new command path starts the CLI once (cached after)
      for (let i = 0; i < shown.length; i += 4) {
        for (const p of await Promise.all(shown.slice(i, i + 4).map((cmd) => commandProblems(cmd, helpOf)))) problems.push(...p)
      }
      expect(problems).toEqual([])
    }, 180_000)
  })
})
