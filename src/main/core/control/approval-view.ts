// The approval part of a tool or a prompt as the control API, the CLI and the window show it
// (tool-view.ts, prompt-view.ts): its status and hash, when the user rejected exactly this
// definition, and, once it changed since approval, the approved definition to compare with.
import type { Approval } from '../catalog/classify'

/** What an entry of the catalog knows of its approval; `previous` is the approved definition of a changed one. */
interface Approvable<P> {
  readonly approval: Approval
  readonly hash: string
  readonly rejectedAt?: string
  readonly previous?: P
}

/** `rest`: the fields of the approved definition beyond its title and description (schemas, arguments, text), in the order shown. */
export function approvalView<P extends { readonly title?: string; readonly description: string }, R extends object>(
  e: Approvable<P>,
  rest: (previous: P) => R,
) {
  const p = e.previous
  return {
    status: e.approval,
    hash: e.hash,
    ...(e.rejectedAt ? { rejected_at: e.rejectedAt } : {}),
    ...(p
      ? {
          previous_description: p.description,
          previous: {
            ...(p.title ? { title: p.title } : {}),
            description: p.description,
            ...rest(p),
          },
        }
      : {}),
  }
}
