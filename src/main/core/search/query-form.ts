// The shape of a request: the paths and URLs in it, which say where things are rather
// than what to do, and the clauses it is made of ("find the trending repos, then save a summary
// to notes.md"), each led by its own verb.

// scheme://host/path…  (the host names the service: github, youtube, arxiv)
const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/([^\s/?#]+)[^\s]*/gi
// a/b/c, /a/b, ~/a, ./a/b.txt: two or more segments joined by "/"
const PATH_RE = /(^|\s)([~.]{0,2}\/?(?:[^\s/]+\/)+[^\s/]*)/g
// a file name: a name, a dot, an extension of 1 to 5 letters or digits ("notes.md", "data.xlsx")
const FILE_NAME = /^[^.\s]+\.[a-z0-9]{1,5}$/i
// host parts that name no service
const HOST_NOISE: ReadonlySet<string> = new Set(['www', 'com', 'org', 'net', 'io', 'co', 'app', 'dev', 'html', 'htm'])

/**
 * The request with each URL reduced to its host's words ("https://www.youtube.com/watch?v=…" →
 * "youtube") and each path to its last segment ("/home/me/notes/todo.md" → "todo.md"): the
 * folders on the way to a file say where it is, not what the request wants done with it.
 */
export function reduceLocations(query: string, fileWord = false): string {
  return query
    .replace(URL_RE, (_m, host: string) => {
      const parts = host
        .toLowerCase()
        .split(/[.:]/)
        .filter((p) => p && !HOST_NOISE.has(p) && !/^\d+$/.test(p))
      return parts.join(' ')
    })
    .replace(PATH_RE, (_m, before: string, path: string) => {
      const segments = path.split('/').filter(Boolean)
      const last = segments.at(-1) ?? ''
      // a last segment with an extension names a file ("report.md"): say so
      return `${before}${last}${fileWord && FILE_NAME.test(last) ? ' file' : ''}`
    })
}

// Where a new clause starts: after a sentence's end or a semicolon, and at "and" / "then".
const CLAUSE_BREAK = /[.!?;]+(?:\s|$)|\b(?:and|then)\b/i

/** The request split into clauses, in order (the first is the whole request when it has one). */
export function clauses(query: string): string[] {
  return query
    .split(CLAUSE_BREAK)
    .map((c) => c.trim())
    .filter(Boolean)
}
