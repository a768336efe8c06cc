// Toolgate, as the client of an upstream server, applies the defaults of a form elicitation (SEP-1034,
// 2025-11-25): a field the answer leaves out that the server's schema gives a `default` goes back to
// the server with that default, whoever answered (the user in the window or CLI, or the agent's
// client), in both eras. Only the flat primitive values a form holds (string, number, boolean, a
// list of strings) are filled in; a default of any other shape is left out, so a server's odd
// schema never makes the answer invalid.

type Value = string | number | boolean | string[]

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function formValue(v: unknown): v is Value {
  return (
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    (typeof v === 'number' && Number.isFinite(v)) ||
    (Array.isArray(v) && v.every((x) => typeof x === 'string'))
  )
}

/**
 * The answer to `elicitation/create` with the form's defaults filled in where an accepted answer
 * leaves a field out; any other answer (decline, cancel, a URL question, sampling) as it was.
 * Returns a new object; the server's schema is only read (own properties only).
 */
export function withFormDefaults(method: string, params: Record<string, unknown>, answer: Record<string, unknown>): Record<string, unknown> {
  if (method !== 'elicitation/create' || params.mode === 'url' || answer.action !== 'accept' || !isRecord(answer.content)) return answer
  const schema = params.requestedSchema
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : null
  if (!properties) return answer
  const content = answer.content
  const filled: Array<[string, Value]> = []
  for (const name of Object.keys(properties)) {
    const prop = properties[name]
    if (Object.hasOwn(content, name) || !isRecord(prop) || !Object.hasOwn(prop, 'default')) continue
    const value = prop.default
    if (formValue(value)) filled.push([name, Array.isArray(value) ? [...value] : value])
  }
  if (filled.length === 0) return answer
  // own properties only (Object.fromEntries defines them): a field named "__proto__" stays a field
  return { ...answer, content: Object.fromEntries([...Object.entries(content), ...filled]) }
}
