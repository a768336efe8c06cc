// What changed in a prompt since it was approved (docs/passthrough.md), from the same text diff as tools
// (tool-diff.ts): title, description, arguments (one line each) and the text it gives without
// arguments. The window and the CLI show the same model.
import type { PromptArgument, PromptInfo } from './prompts'
import { textDiff, type TextPart } from './tool-diff'

export interface PromptChange {
  title: TextPart[] | null
  description: TextPart[] | null
  arguments: TextPart[] | null
  text: TextPart[] | null
}

/** The arguments as lines: "name (required): description". */
export function argumentLines(args: readonly PromptArgument[]): string {
  return args.map((a) => `${a.name}${a.required ? ' (required)' : ''}${a.title ? ` "${a.title}"` : ''}${a.description ? `: ${a.description}` : ''}`).join('\n')
}

/** A changed prompt against its approved definition; a new one against nothing. */
export function promptChange(p: PromptInfo): PromptChange {
  const prev = p.approval.previous
  return {
    title: textDiff(prev?.title ?? '', p.title ?? ''),
    description: textDiff(prev?.description ?? '', p.description),
    arguments: textDiff(argumentLines(prev?.arguments ?? []), argumentLines(p.arguments)),
    text: textDiff(prev?.text ?? '', p.text ?? ''),
  }
}
