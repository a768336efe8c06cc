// Deceptive tool names: invisible, bidi-control and mixed-script characters.
import { describe, expect, it } from 'vitest'
import { escapedName, nameWarning } from '../../src/shared/tool-name'

describe('nameWarning', () => {
  it('flags bidi controls, invisible characters and Latin mixed with look-alike scripts', () => {
    expect(nameWarning('list_notes\u202egnp.exe')).toMatch(/bidirectional/)
    expect(nameWarning('read\u2066_file')).toMatch(/bidirectional/)
    expect(nameWarning('read\u200b_file')).toMatch(/invisible/)
    expect(nameWarning('del\u{e0041}ete')).toMatch(/invisible/)
    // a Cyrillic "а" (U+0430) in a Latin name
    expect(nameWarning('re\u0430d_file')).toBe('the name mixes letters of several scripts (Latin, Cyrillic), which can imitate another name')
  })

  it('leaves ordinary names alone, in any one script', () => {
    for (const n of ['read_file', 'get-weather.v2', 'поиск_файлов', 'αναζήτηση', 'search_検索', 'list:items']) expect(nameWarning(n)).toBeNull()
  })

  it('escapedName writes everything outside printable ASCII as \\u{…}', () => {
    expect(escapedName('list_notes\u202egnp.exe')).toBe('list_notes\\u{202e}gnp.exe')
    expect(escapedName('re\u0430d')).toBe('re\\u{430}d')
  })
})
