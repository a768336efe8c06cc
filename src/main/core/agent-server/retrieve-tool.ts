// retrieve_tools for an agent: the one discovery function (same bytes as every other surface),
// counted in the stats and noted in the activity record with its hits and locked matches. While
// servers in scope are still starting it waits for them (up to STARTING_WAIT_MS), then says how
// many still are.
import type { RetrieveArgs } from '../discovery/retrieve'
import { retrieveParts, stillStarting } from '../discovery/retrieve'
import { responseText } from '../discovery/response-text'
import type { UpstreamManager } from '../upstream/manager'
import type { Catalog } from '../catalog/catalog'
import type { DiscoveryStats } from '../discovery/stats'
import type { ActivityRecorder, Who } from '../activity/recorder'
import type { Scope } from '../access/scope'

export async function retrieveForAgent(
  deps: {
    catalog: Catalog
    stats: DiscoveryStats
    activity?: ActivityRecorder
    manager: Pick<UpstreamManager, 'waitStarted' | 'get'>
    /** the config edit that could not be applied (the last good config runs), else null */
    configProblem?: () => string | null
  },
  args: RetrieveArgs,
  scope: Scope,
  who: Who,
): Promise<string> {
  const notListed = await stillStarting(deps.catalog, deps.manager, scope)
  let lockedOnly = false
  let locked: readonly string[] = []
  const { response, sources } = retrieveParts(
    deps.catalog,
    args,
    scope,
    {
      recordSearch(query, includeDisabled, only, matched) {
        deps.stats.recordSearch(query, includeDisabled, only, matched)
        lockedOnly = only
        locked = matched
      },
    },
    notListed,
    deps.configProblem?.() ?? null,
  )
  deps.activity?.search(who, { query: args.query, include_disabled: args.include_disabled === true, hits: response.total, locked_only: lockedOnly, locked })
  return responseText(response, sources)
}
