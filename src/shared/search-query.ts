// The search page's query string (GET /api/v1/search): `q`, `limit`, `include_disabled` read into
// retrieve_tools' arguments and written back from them; retrieve_tools' own schema checks them again.
import { z } from 'zod'
import { ApiError, type SearchArgs } from './api'
import { queryCodec } from './operation'
import { lazy } from './lazy'

/** The search page's query: `q`, `limit`, `include_disabled` as strings (GET /api/v1/search), checked again as retrieve_tools checks them. */
const SearchQuery = lazy(() =>
  z.object({
    q: z.string({ error: 'q is required: GET /api/v1/search?q=read+a+file' }),
    limit: z
      .string()
      .regex(/^-?\d+$/, 'limit must be an integer from 1 to 100')
      .transform(Number)
      .optional(),
    include_disabled: z.enum(['true', 'false', '1', '0'], { error: 'include_disabled must be true or false' }).optional(),
  }),
)

export const searchQuery = queryCodec<SearchArgs>({
  decode(params) {
    const q = SearchQuery().safeParse(params)
    if (!q.success) throw new ApiError('invalid_arguments', q.error.issues[0].message, 400)
    return {
      query: q.data.q,
      ...(q.data.limit !== undefined ? { limit: q.data.limit } : {}),
      ...(q.data.include_disabled !== undefined ? { include_disabled: q.data.include_disabled === 'true' || q.data.include_disabled === '1' } : {}),
    }
  },
  encode(args) {
    return {
      q: args.query,
      ...(args.limit !== undefined ? { limit: String(args.limit) } : {}),
      ...(args.include_disabled !== undefined ? { include_disabled: args.include_disabled ? 'true' : 'false' } : {}),
    }
  },
})
