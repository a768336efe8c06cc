// The user's classification of a tool: read, write or destructive for exactly
// the definition the user saw (its hash; a changed tool asks again). It stands in for the hints a
// server did not give. The operator's `tool_classes` in mcp_config.json wins over it, and a
// server's own stricter hint wins over both. Only a human classifies: no MCP tool reaches this.
import { ApiError } from '../../../shared/api'
import { callWith, hintVariant, variantRank, variantReason, type Variant } from '../../../shared/call-variant'
import type { Catalog } from './catalog'
import { organisationRefusal, requireReviewed, requireTool } from './decisions'
import { operatorClassOf } from './facts'

export async function classifyTool(catalog: Catalog, server: string, tool: string, cls: Variant, expectedHash: string): Promise<string> {
  const e = requireTool(catalog, server, tool)
  requireReviewed(e, expectedHash)
  const cfg = catalog.serverConfig(server)
  const operator = cfg ? operatorClassOf(cfg, e.name) : undefined
  if (operator && cfg?.organisation?.tool_classes && Object.hasOwn(cfg.organisation.tool_classes, e.name)) {
    throw organisationRefusal(`${e.id} is classified ${operator}`)
  }
  if (operator) {
    throw new ApiError(
      'operator_policy',
      `${e.id} is classified ${operator} by the operator ("tool_classes" in mcp_config.json); that is operator policy and cannot be changed from Toolgate.`,
      409,
    )
  }
  const hinted = hintVariant(e.def.annotations)
  if (hinted !== null && variantRank(hinted) > variantRank(cls)) {
    const why = variantReason({ variant: hinted, source: 'annotations' }, e.def.annotations)
    throw new ApiError(
      'annotation_stricter',
      `${e.id} cannot be classified ${cls}: ${why}, and a server's own stricter annotation always wins (it needs ${callWith(hinted)}).`,
      409,
    )
  }
  const current = catalog.store.current.tools[e.id]?.classified
  if (current?.hash === e.hash && current.class === cls) return `${e.id} is already classified ${cls}.`
  await catalog.decide([server], (s) => {
    s.tools[e.id] = { ...s.tools[e.id], classified: { class: cls, hash: e.hash, at: new Date().toISOString() } }
  })
  const now = catalog.entry(e.id)
  const variant = now ? callWith(now.variant) : callWith(cls)
  const note = hinted === cls ? ' (its own annotations say the same)' : ''
  return `Classified ${e.id} as ${cls}${note}: agents call it with ${variant}. If ${server} changes this tool's definition, it asks again.`
}
