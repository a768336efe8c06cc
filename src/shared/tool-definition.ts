// One tool as an upstream lists it and as Toolgate keeps it (after validation and caps in
// upstream/tools.ts): everything an agent can read about a tool. Upstream text is untrusted.
import type { ToolAnnotations } from './call-variant'

export interface ToolDefinition {
  name: string
  title?: string
  /** '' when the upstream gave none */
  description: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  /** as listed; the hints are read with strict equality (a string "false" is not false) */
  annotations?: ToolAnnotations
  /**
   * `_meta.ui` of an MCP App tool (its `resourceUri` is the App's `ui://` resource; the older
   * `_meta["ui/resourceUri"]` is read into it): kept, approved with the rest, and shown to hosts
   * in the direct view
   */
  ui?: Record<string, unknown>
}
