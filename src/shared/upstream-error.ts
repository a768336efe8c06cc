// A server's failure in words a user understands: the common transport errors (a
// command not found, no permission, a missing folder, an early exit, a timeout, HTTP 401/404/5xx,
// nothing listening…) mapped to what happened and what to do; the raw text stays behind
// "details". Pure; the window and the CLI use it. The raw text is the upstream's and the OS's:
// it is matched and shown as text, never interpreted.

export interface ExplainedError {
  /** what happened, in one sentence */
  title: string
  /** what to do about it ('' when there is nothing specific to say) */
  hint: string
  /** the last thing a process that exited printed (its stderr tail), when known */
  said?: string
  /** Toolgate retries on its own (attempt n), or gave up until the server is restarted */
  retry: { attempt: number } | { gaveUpAfter: number } | null
}

type Explained = Omit<ExplainedError, 'retry'>
type Rule = { test: RegExp; explain: (m: RegExpMatchArray) => Explained }

const RULES: Rule[] = [
  {
    test: /\bspawn (.+?) ENOENT\b/,
    explain: (m) => ({
      title: `The command "${m[1]}" was not found.`,
      hint: 'Check that it is installed and on the PATH Toolgate runs with, or write its full path as "command" in mcp_config.json.',
    }),
  },
  {
    test: /\bspawn (.+?) EACCES\b|\bEACCES\b/,
    explain: (m) => ({
      title: m[1] ? `Toolgate is not allowed to run "${m[1]}".` : 'Permission denied.',
      hint: 'The file is not executable or you cannot read it: check its permissions (chmod +x), or run it through its interpreter ("command": "node").',
    }),
  },
  {
    test: /working directory "(.+?)" does not exist/,
    explain: (m) => ({ title: `The working directory "${m[1]}" does not exist.`, hint: 'Fix "cwd" in mcp_config.json, or create the folder.' }),
  },
  {
    test: /\bexited with code (\d+)(?::\s*([\s\S]*?))?(?: during the MCP handshake| \(reconnecting|$)/,
    explain: (m) => ({
      title: `The server stopped right after it started (exit code ${m[1]}).`,
      hint: hiddenPathHint(m[2] ?? '') ?? 'Usually a wrong argument, a missing file or dependency, or a missing setting such as an API key in "env".',
      ...(m[2]?.trim() ? { said: m[2].trim() } : {}),
    }),
  },
  {
    test: /\bwas killed by (SIG[A-Z0-9]+)/,
    explain: (m) => ({ title: `The server process was killed (${m[1]}).`, hint: 'Something outside Toolgate stopped it, or it ran out of memory.' }),
  },
  {
    test: /did not complete the MCP handshake within (\d+) ms/,
    explain: (m) => ({
      title: `The server did not answer within ${Math.round(Number(m[1]) / 1000)} s.`,
      hint: 'It may be slow to start (a first npx download), hung, or not an MCP server on this transport.',
    }),
  },
  {
    test: /\bECONNREFUSED\b/,
    explain: () => ({ title: "Nothing is listening at the server's address.", hint: 'Start the server, or check the host and port in "url".' }),
  },
  {
    test: /\b(?:ENOTFOUND|EAI_AGAIN)\b/,
    explain: () => ({ title: "The server's host name could not be found.", hint: 'Check the host name in "url" and the network connection.' }),
  },
  {
    test: /\b(?:CERT_\w+|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\b/,
    explain: () => ({
      title: "The server's TLS certificate is not trusted.",
      hint: 'Check that "url" is the right address, or the certificate of the server.',
    }),
  },
  {
    test: /\bstatus code \(401\)|\bHTTP 401\b|\b401 Unauthorized\b/,
    explain: () => ({
      title: "The server refused Toolgate's credentials (HTTP 401).",
      hint: 'Check the token in "headers" (or sign in, if the server uses OAuth).',
    }),
  },
  {
    test: /\bstatus code \(403\)|\bHTTP 403\b|\b403 Forbidden\b/,
    explain: () => ({ title: 'The server denied access (HTTP 403).', hint: 'The credentials in "headers" are not allowed to use this server.' }),
  },
  {
    test: /\bstatus code \(404\)|\bHTTP 404\b|\b404 Not Found\b/,
    explain: () => ({
      title: 'Nothing answers at that URL (HTTP 404).',
      hint: 'Check the path in "url": MCP servers usually answer at /mcp (or /sse for the older transport).',
    }),
  },
  {
    test: /\bstatus code \((5\d\d)\)|\bHTTP (5\d\d)\b/,
    explain: (m) => ({ title: `The server had an internal error (HTTP ${m[1] ?? m[2]}).`, hint: "It is the server's own problem; its log says more." }),
  },
  {
    test: /\btimed out\b|\bETIMEDOUT\b|Request timeout/i,
    explain: () => ({ title: 'The server did not answer in time.', hint: 'It may be overloaded, hung or unreachable.' }),
  },
  {
    test: /\bECONNRESET\b|socket hang up/,
    explain: () => ({ title: 'The connection to the server was cut.', hint: 'The server, or something between, closed it.' }),
  },
  {
    test: /not JSON-RPC/,
    explain: () => ({
      title: 'The server wrote something that is not MCP.',
      hint: 'A stdio MCP server must write only JSON-RPC on stdout; it may print logs there, or not be an MCP server.',
    }),
  },
  {
    test: /too large/,
    explain: () => ({ title: 'The server sent a message that is too large.', hint: 'Raise limits.max_result_bytes in mcp_config.json if that is expected.' }),
  },
  {
    test: /health check failed/,
    explain: () => ({ title: 'The server stopped answering.', hint: 'It may be hung.' }),
  },
  {
    test: /connection closed|closed the connection/i,
    explain: () => ({ title: 'The server closed the connection while starting.', hint: 'It may have crashed, or not be an MCP server.' }),
  },
]

/** A file a server could not open whose path passes through a dot folder or file: on Linux the
 *  sandbox hides every dot entry of the home (docs/isolation.md), so the file may well exist. */
const MISSING_DOT_PATH = /\bENOENT\b[^'\n]*?'((?:\/[^'\n/]+)*?\/\.(?!\.?\/)[^'\n/]+(?:\/[^'\n]*)?)'/

function hiddenPathHint(said: string): string | undefined {
  const m = MISSING_DOT_PATH.exec(said)
  if (!m?.[1]) return undefined
  return `It could not open ${m[1]}. If it exists, Toolgate's sandbox may hide it (on Linux every file and folder of your home whose name starts with a dot is hidden): grant it with "sandbox": { "fs_read": ["${m[1]}"] } on this server in mcp_config.json.`
}

/** What went wrong with a server, for people; `raw` is its last_error. */
export function explainServerError(raw: string): ExplainedError {
  const gaveUp = /gave up after (\d+) consecutive failures/.exec(raw)
  const attempt = /\(reconnecting, attempt (\d+)\)/.exec(raw)
  const retry = gaveUp ? { gaveUpAfter: Number(gaveUp[1]) } : attempt ? { attempt: Number(attempt[1]) } : null
  for (const r of RULES) {
    const m = raw.match(r.test)
    if (m) return { ...r.explain(m), retry }
  }
  return { title: 'The server failed.', hint: '', retry }
}

/** "Toolgate retries on its own (attempt 3)." / "Toolgate gave up after 8 failures." */
export function retryText(e: ExplainedError): string {
  if (!e.retry) return ''
  return 'attempt' in e.retry
    ? `Toolgate keeps retrying on its own (attempt ${e.retry.attempt}).`
    : `Toolgate stopped retrying after ${e.retry.gaveUpAfter} failures in a row.`
}
