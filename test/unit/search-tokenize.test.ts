import { describe, expect, it } from 'vitest'
import { isStopWord, makeAnalyzer, makeQueryAnalyzer, splitIdentifier, tokenize } from '../../src/main/core/search/tokenize'
import { makeStem, porter, stem } from '../../src/main/core/search/stem'
import { expandQuery, leadingVerb, synonymsOf } from '../../src/main/core/search/synonyms'

describe('splitIdentifier', () => {
  it.each([
    ['readFile', ['read', 'file']],
    ['list_directory-with.sizes', ['list', 'directory', 'with', 'sizes']],
    ['HTTPServer2', ['http', 'server', '2']],
    ['getURLs', ['get', 'urls']],
    ['listIDs', ['list', 'ids']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['base64', ['base', '64']],
    ['git_diff_staged', ['git', 'diff', 'staged']],
    ['get-crypto-price', ['get', 'crypto', 'price']],
    ['mcp_howtocook_getAllRecipes', ['mcp', 'howtocook', 'get', 'all', 'recipes']],
    ['npm/sentinel:npmSearch', ['npm', 'sentinel', 'npm', 'search']],
    ['  ', []],
    ['', []],
  ])('%s → %j', (input, expected) => {
    expect(splitIdentifier(input)).toEqual(expected)
  })

  it('handles accented letters and full-width forms (NFKC)', () => {
    expect(splitIdentifier('créerFichier')).toEqual(['créer', 'fichier'])
    expect(splitIdentifier('ＡＢＣ_def')).toEqual(['abc', 'def'])
  })

  it('keeps a run of a script without case as one word', () => {
    expect(splitIdentifier('get_余票_info')).toEqual(['get', '余票', 'info'])
  })

  it('splits plain ASCII exactly like the Unicode path', () => {
    const samples = [
      'readFile HTTPServer2 getURLs',
      'list_directory-with.sizes',
      'a1b2C3dEF gH',
      'XMLHttpRequest IDs URLsX',
      'snake_case kebab-case camelCase PascalCase',
    ]
    for (const s of samples) expect(splitIdentifier(`${s} é`)).toEqual([...splitIdentifier(s), 'é'])
  })
})

describe('tokenize (index terms)', () => {
  it('drops stop words and single letters, stems the rest', () => {
    expect(tokenize('Get a list of all the files in my folder')).toEqual(['get', 'list', 'file', 'folder'])
    expect(tokenize("I've added it to them")).toEqual(['add'])
    expect(tokenize('really, something is still there')).toEqual([])
  })

  it('stems inflections together', () => {
    expect(tokenize('creates created creating')).toEqual(['creat', 'creat', 'creat'])
    expect(tokenize('directories directory')).toEqual(['directori', 'directori'])
    expect(tokenize('relations related relating')).toEqual(['relat', 'relat', 'relat'])
  })

  it('indexes camel-cased words whole as well as split', () => {
    expect(tokenize('GitHub')).toEqual(['git', 'hub', 'github'])
    expect(tokenize('readFile')).toEqual(['read', 'file', 'readfil'])
    expect(tokenize('read_file')).toEqual(['read', 'file'])
  })

  it('turns CJK runs into character bigrams', () => {
    expect(tokenize('查询余票')).toEqual(['查询', '询余', '余票'])
    expect(tokenize('票')).toEqual(['票'])
    expect(tokenize('12306余票信息')).toEqual(['12306', '余票', '票信', '信息'])
  })

  it('can be configured down to plain lowercase words', () => {
    const plain = makeAnalyzer({ splitCase: false, stopWords: false, stem: false, catenate: false })
    expect(plain('readFile of the Files')).toEqual(['readfile', 'of', 'the', 'files'])
  })

  it('query analysis keeps a camel-cased word as one term, its parts alongside', () => {
    const q = makeQueryAnalyzer()('GitHub trending repos')
    expect(q.terms).toEqual(['github', 'trend', 'repo'])
    expect(q.compounds).toEqual([{ term: 'github', parts: ['git', 'hub'] }])
    const { weights, concepts } = expandQuery(q.terms, undefined, { synonym: 0.5, actionElsewhere: 0.1 }, q.compounds)
    expect(weights.get('hub')).toBe(1)
    expect(concepts.get('hub')).toEqual(['github'])
  })

  it('knows its stop words', () => {
    expect(isStopWord('the')).toBe(true)
    expect(isStopWord('tool')).toBe(true)
    expect(isStopWord('file')).toBe(false)
    expect(isStopWord('delete')).toBe(false)
  })
})

describe('Porter stemmer', () => {
  // Pairs from Porter's published vocabulary/output lists.
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['ties', 'ti'],
    ['caress', 'caress'],
    ['cats', 'cat'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['plastered', 'plaster'],
    ['bled', 'bled'],
    ['motoring', 'motor'],
    ['sing', 'sing'],
    ['conflated', 'conflat'],
    ['troubled', 'troubl'],
    ['sized', 'size'],
    ['hopping', 'hop'],
    ['tanned', 'tan'],
    ['falling', 'fall'],
    ['hissing', 'hiss'],
    ['fizzed', 'fizz'],
    ['failing', 'fail'],
    ['filing', 'file'],
    ['happy', 'happi'],
    ['sky', 'sky'],
    ['relational', 'relat'],
    ['conditional', 'condit'],
    ['rational', 'ration'],
    ['valenci', 'valenc'],
    ['digitizer', 'digit'],
    ['conformabli', 'conform'],
    ['radicalli', 'radic'],
    ['differentli', 'differ'],
    ['vileli', 'vile'],
    ['analogousli', 'analog'],
    ['vietnamization', 'vietnam'],
    ['predication', 'predic'],
    ['operator', 'oper'],
    ['feudalism', 'feudal'],
    ['decisiveness', 'decis'],
    ['hopefulness', 'hope'],
    ['callousness', 'callous'],
    ['formaliti', 'formal'],
    ['sensitiviti', 'sensit'],
    ['sensibiliti', 'sensibl'],
    ['triplicate', 'triplic'],
    ['formative', 'form'],
    ['formalize', 'formal'],
    ['electriciti', 'electr'],
    ['electrical', 'electr'],
    ['hopeful', 'hope'],
    ['goodness', 'good'],
    ['revival', 'reviv'],
    ['allowance', 'allow'],
    ['inference', 'infer'],
    ['airliner', 'airlin'],
    ['gyroscopic', 'gyroscop'],
    ['adjustable', 'adjust'],
    ['defensible', 'defens'],
    ['irritant', 'irrit'],
    ['replacement', 'replac'],
    ['adjustment', 'adjust'],
    ['dependent', 'depend'],
    ['adoption', 'adopt'],
    ['homologou', 'homolog'],
    ['communism', 'commun'],
    ['activate', 'activ'],
    ['angulariti', 'angular'],
    ['homologous', 'homolog'],
    ['effective', 'effect'],
    ['bowdlerize', 'bowdler'],
    ['probate', 'probat'],
    ['rate', 'rate'],
    ['cease', 'ceas'],
    ['controll', 'control'],
    ['roll', 'roll'],
    ['generalizations', 'gener'],
    ['oscillators', 'oscil'],
  ])('%s → %s', (word, expected) => {
    expect(porter(word)).toBe(expected)
    expect(stem(word)).toBe(expected) // the extensions leave Porter's own list alone
  })

  it('plain Porter keeps -ship and undoubles add: the quirks the two extensions fix', () => {
    expect(porter('relationship')).not.toBe(porter('relation'))
    expect(porter('added')).toBe('ad')
    expect(porter('add')).toBe('add')
  })

  it('the -ship extension (restored in round three) strips -ship when enough is left', () => {
    expect(stem('relationship')).toBe(stem('relation'))
    expect(stem('relationships')).toBe(stem('relations'))
    expect(stem('ownership')).toBe(stem('owner'))
    expect(stem('ship')).toBe('ship')
    expect(stem('worship')).toBe(porter('worship')) // "wor" is too short to be a stem
    expect(makeStem({ ship: false, shortStems: true })('relationship')).toBe(porter('relationship'))
  })

  it('the short-stem extension (restored in round three) keeps added/adding with add', () => {
    expect(stem('added')).toBe('add')
    expect(stem('adding')).toBe('add')
    expect(stem('adds')).toBe('add')
    expect(stem('hopping')).toBe('hop') // 4 letters before -ing: Porter as usual
    expect(stem('filled')).toBe('fill') // l, s, z are never undoubled by Porter anyway
    expect(makeStem({ ship: true, shortStems: false })('added')).toBe('ad')
  })

  it('leaves short words, digits and non-Latin text alone', () => {
    for (const w of ['go', 'is', '2024', 'v2', '余票', 'données']) expect(stem(w)).toBe(w)
  })
})

describe('synonyms', () => {
  it('groups are symmetric and stemmed', () => {
    expect(synonymsOf(stem('folder'))).toContain(stem('directory'))
    expect(synonymsOf(stem('directory'))).toContain(stem('folder'))
    expect(synonymsOf(stem('remove'))).toContain(stem('delete'))
    expect(synonymsOf('zzz')).toEqual([])
  })

  it("expands a query: typed words weight 1, thing synonyms and the leading verb's synonyms at the synonym weight", () => {
    const terms = tokenize('remove the folder changes')
    const lead = leadingVerb(splitIdentifier('remove the folder changes'), isStopWord)
    expect(lead).toBe(stem('remove'))
    const { weights, concepts } = expandQuery(terms, lead, { synonym: 0.5, actionElsewhere: 0.1 })
    expect(weights.get(stem('remove'))).toBe(1)
    expect(weights.get(stem('delete'))).toBe(0.5) // leading verb
    expect(weights.get(stem('directory'))).toBe(0.5) // thing
    expect(weights.get(stem('edit'))).toBe(0.1) // action synonym of a later word ("changes")
    expect(concepts.get(stem('delete'))).toEqual([stem('remove')])
  })

  it('a typed word keeps weight 1 even when it is also a synonym of another typed word', () => {
    const { weights, concepts } = expandQuery(tokenize('create new table'), stem('create'), { synonym: 0.5, actionElsewhere: 0.1 })
    expect(weights.get('new')).toBe(1)
    expect(concepts.get('new')).toEqual(['new', stem('create')])
  })

  it('finds the leading verb past lead-ins and -ly adverbs', () => {
    const lead = (q: string): string | undefined => leadingVerb(splitIdentifier(q), isStopWord)
    expect(lead('I want to delete a file')).toBe(stem('delete'))
    expect(lead('Permanently record my changes')).toBe(stem('record'))
    expect(lead('the a of')).toBeUndefined()
  })
})
