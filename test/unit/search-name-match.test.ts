import { describe, expect, it } from 'vitest'
import { nameMatchScore } from '../../src/main/core/search/name-match'

describe('nameMatchScore (name-only matching for quarantined and pending tools)', () => {
  it('counts query words equal to a name word', () => {
    expect(nameMatchScore('delete repository', 'delete_repository')).toBe(2)
    expect(nameMatchScore('rotate keys', 'rotate_keys')).toBe(2)
    expect(nameMatchScore('rotate', 'rotate_keys')).toBe(1)
  })

  it('splits camelCase, kebab and dotted names the way the index does', () => {
    expect(nameMatchScore('create issue', 'createIssue')).toBe(2)
    expect(nameMatchScore('crypto price', 'get-crypto-price')).toBe(2)
    expect(nameMatchScore('http server', 'HTTPServer2')).toBe(2)
  })

  it('counts a query word that is a substring of the lowercased name', () => {
    expect(nameMatchScore('repo', 'delete_repository')).toBe(1)
    expect(nameMatchScore('issue', 'createIssue')).toBe(1)
    expect(nameMatchScore('github', 'get_github_trending')).toBe(1)
  })

  it('counts a query word with the same stem as a name word', () => {
    expect(nameMatchScore('deleting repositories', 'delete_repository')).toBe(2)
  })

  it('ignores words under 2 characters, stop words and repeats', () => {
    expect(nameMatchScore('a', 'a_tool')).toBe(0)
    expect(nameMatchScore('is it in the list', 'list_tables')).toBe(1) // only "list"; "is" is a stop word
    expect(nameMatchScore('keys keys KEYS', 'rotate_keys')).toBe(1)
  })

  it('is 0 when nothing matches, never negative', () => {
    expect(nameMatchScore('weather forecast', 'delete_repository')).toBe(0)
    expect(nameMatchScore('', 'delete_repository')).toBe(0)
    expect(nameMatchScore('delete', '')).toBe(0)
  })

  it('ranks more matching words higher', () => {
    const q = 'delete the github repository'
    expect(nameMatchScore(q, 'github_delete_repository')).toBeGreaterThan(nameMatchScore(q, 'delete_file'))
  })
})
