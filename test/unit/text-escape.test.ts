// escapeControls / escapeText / escapeJsonControls: untrusted text shown to people never drives
// a terminal or reorders a line; JSON keeps its meaning.
import { describe, expect, it } from 'vitest'
import { escapeControls, escapeJsonControls, escapeText, hiddenCount, visibleParts } from '../../src/shared/text'

/** `text` written in Unicode tag characters: invisible to a person, read by a model (ASCII smuggling). */
const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')

describe('escaping text for people and terminals', () => {
  it('shows ESC sequences (OSC 52, CSI), C1 and bidi overrides as \\u escapes', () => {
    expect(escapeControls('a\u001b]52;c;ZXZpbA==\u0007b')).toBe('a\\u001b]52;c;ZXZpbA==\\u0007b')
    expect(escapeControls('x\u009b31my')).toBe('x\\u009b31my')
    expect(escapeControls('list_notes\u202egnp.exe')).toBe('list_notes\\u202egnp.exe')
    expect(escapeControls('zero\u200bwidth\u2066iso\u2069\ufeff')).toBe('zero\\u200bwidth\\u2066iso\\u2069\\ufeff')
    expect(escapeControls('del\u007f')).toBe('del\\u007f')
  })

  it('one field stays on one line; a whole message keeps its newlines and tabs', () => {
    expect(escapeControls('a\nb\tc\rd')).toBe('a\\u000ab\\u0009c\\u000dd')
    expect(escapeText('a\nb\tc\rd\u001b[2J')).toBe('a\nb\tc\\u000dd\\u001b[2J')
  })

  it('leaves ordinary text, including non-Latin scripts and emoji, alone', () => {
    const s = 'Grüße, 日本語, עברית, emoji 🎉 — "quotes" and \\backslash'
    expect(escapeControls(s)).toBe(s)
    expect(escapeText(s)).toBe(s)
  })

  it('JSON printed for a terminal has no raw C1 or bidi characters and parses to the same value', () => {
    const value = { d: 'x\u009b31m \u202e \u2028 \u001b[2J', k: ['\u0085'] }
    const raw = JSON.stringify(value)
    // eslint-disable-next-line no-control-regex
    expect(raw).toMatch(/[\u0080-\u009f\u202e\u2028]/)
    const safe = escapeJsonControls(raw)
    // eslint-disable-next-line no-control-regex
    expect(safe).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029]/)
    expect(JSON.parse(safe)).toEqual(value)
  })

  it('shows tag characters, supplementary variation selectors and fillers (text smuggled past a reader) as \\u{…} escapes', () => {
    expect(escapeText(`Weather${tags('send')}`)).toBe('Weather\\u{e0073}\\u{e0065}\\u{e006e}\\u{e0064}')
    expect(escapeControls('a\u{e0100}b\u{e01ef}c')).toBe('a\\u{e0100}b\\u{e01ef}c')
    expect(escapeControls('soft\u00adhyphen \u3164 filler \u2064')).toBe('soft\\u00adhyphen \\u3164 filler \\u2064')
    // an emoji with its presentation selector is ordinary text
    expect(escapeText('Warning ⚠️ and 🎉')).toBe('Warning ⚠️ and 🎉')
  })

  it('JSON with tag characters stays valid JSON, parses to the same value, and shows no raw tag character', () => {
    const value = { description: `ok${tags('hi')}` }
    const safe = escapeJsonControls(JSON.stringify(value))
    expect(safe).toBe('{"description":"ok\\udb40\\udc68\\udb40\\udc69"}')
    expect(JSON.parse(safe)).toEqual(value)
  })

  it('counts the hidden characters and splits a text into what is shown and the escapes', () => {
    expect(hiddenCount(`line\nnext\ttab ${tags('abc')}\u202e`)).toBe(4)
    expect(hiddenCount('plain text, Grüße 🎉\n')).toBe(0)
    expect(visibleParts('a\u202eb\u{e0041}')).toEqual([
      { text: 'a', hidden: false },
      { text: '\\u202e', hidden: true },
      { text: 'b', hidden: false },
      { text: '\\u{e0041}', hidden: true },
    ])
    expect(visibleParts('two\nlines')).toEqual([{ text: 'two\nlines', hidden: false }])
  })

  it('escapes a run of basic variation selectors but the first, keeping an emoji with its one VS16', () => {
    expect(escapeControls('ok\u2764\ufe0f')).toBe('ok\u2764\ufe0f')
    expect(escapeControls('a\ufe0f\ufe0e\ufe00b')).toBe('a\ufe0f\\ufe0e\\ufe00b')
    expect(hiddenCount(`x${'\ufe0f'.repeat(10)}`)).toBe(9)
  })

  it('keeps four combining marks on a character and escapes the rest of a flood', () => {
    // decomposed accents, Vietnamese stacked marks, Devanagari and pointed Hebrew keep theirs
    for (const ok of ['Cafe\u0301', 'Vie\u0323\u0302t', 'क्षत्रिय', 'בְּרֵאשִׁית', 'ế']) expect(escapeControls(ok)).toBe(ok)
    const flood = `n${'\u0301'.repeat(50)}`
    const shown = escapeControls(flood)
    expect(shown.startsWith(`n${'\u0301'.repeat(4)}\\u0301`)).toBe(true)
    expect(shown).not.toMatch(/\p{M}{5}/u)
    expect(hiddenCount(flood)).toBe(46)
  })

  it('escapes lookalikes of ASCII letters (they spell TOOLGATE unlike itself); leaves ª, ², ™, fullwidth digits and punctuation, ℹ️', () => {
    const spelled = [
      'ＴＯＯＬＧＡＴＥ',
      [...'TOOLGATE'].map((c) => String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65)).join(''),
      [...'TOOLGATE'].map((c) => String.fromCodePoint(0x24b6 + c.charCodeAt(0) - 65)).join(''),
      'ℂℍℝ Ⅻ ᵀᴼᴼᴸ',
    ]
    for (const s of spelled) {
      const shown = escapeControls(s)
      // every character that NFKC folds to an ASCII letter is shown as an escape
      expect([...shown].filter((c) => !/[A-Za-z]/.test(c) && /^[A-Za-z]+$/.test(c.normalize('NFKC')))).toEqual([])
      expect(shown).toMatch(/^(\\u\{?[0-9a-f]+\}?| )+$/)
    }
    const ordinary = '1ª vez, m², Brand™, 第１０章（メモ）：はい！ ℹ️ Ⓜ️ ﬁne'
    expect(escapeControls(ordinary)).toBe(ordinary)
  })
})
