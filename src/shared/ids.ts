// Tool ids are "server:tool", split on the first ":" (tool names may contain ":").

export interface ToolRef {
  server: string
  tool: string
}

export function toolId(server: string, tool: string): string {
  return `${server}:${tool}`
}

/** Parses "server:tool"; returns an error sentence instead of throwing. */
export function parseToolId(id: unknown): ToolRef | { error: string } {
  if (typeof id !== 'string' || id.length === 0) {
    return { error: 'name must be a non-empty string of the form "server:tool" (for example "github:list_repos").' }
  }
  const i = id.indexOf(':')
  if (i <= 0 || i === id.length - 1) {
    return { error: `malformed tool name "${id}": expected "server:tool" (for example "github:list_repos"); use retrieve_tools to find tool names.` }
  }
  return { server: id.slice(0, i), tool: id.slice(i + 1) }
}
