// What the browser tests check on a page beside its content: screenshots for docs/screenshots, no sideways scrolling, nothing overlapping, no word broken across lines.
import path from 'node:path'
import type { Locator, Page } from '@playwright/test'
import { expect, SHOTS } from './fixtures'

export const WIDE = { width: 1180, height: 820 }

/** Waits for a toast to go (it would cover the picture), at most 6 s. */
export async function toastGone(page: Page): Promise<void> {
  await page
    .locator('.toast')
    .waitFor({ state: 'detached', timeout: 6000 })
    .catch(() => undefined)
}

/** The whole page as docs/screenshots/<name>. */
export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await toastGone(page)
  await page.screenshot({ path: path.join(SHOTS, name), fullPage })
}

/**
 * One element as docs/screenshots/<name>, then at 420 px (a tall viewport, so the sticky header
 * never covers it) as <narrowName> after checking that nothing scrolls sideways, then dark.
 */
export async function shotOf(page: Page, loc: Locator, name: string, narrowName: string): Promise<void> {
  await toastGone(page)
  await loc.scrollIntoViewIfNeeded()
  await loc.screenshot({ path: path.join(SHOTS, name) })
  await page.setViewportSize({ width: 420, height: 3000 })
  const wide = await page.evaluate(() =>
    document.documentElement.scrollWidth <= 420
      ? []
      : [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > 420.5)
          .slice(-6)
          .map(
            (e) =>
              `${e.parentElement?.className ?? ''} > ${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${(e.textContent ?? '').slice(0, 60)}" right=${Math.round(e.getBoundingClientRect().right)}`,
          ),
  )
  expect(wide, 'no sideways scrolling at 420 px (these elements reach beyond it)').toEqual([])
  await loc.screenshot({ path: path.join(SHOTS, narrowName) })
  await page.setViewportSize(WIDE)
  await page.emulateMedia({ colorScheme: 'dark' })
  await loc.screenshot({ path: path.join(SHOTS, name.replace('.png', '-dark.png')) })
  await page.emulateMedia({ colorScheme: 'light' })
}

/**
 * Nothing inside `loc` covers anything else and nothing runs out of it (the server form's
 * environment rows sat on each other, the secret note and "Add variable"): the boxes of the
 * elements matching `parts` are pairwise disjoint and inside `loc`'s box.
 */
export async function expectLaidOut(loc: Locator, parts: string, what: string): Promise<void> {
  const bad = await loc.evaluate((box0, sel) => {
    const box = box0.getBoundingClientRect()
    const els = [...box0.querySelectorAll(sel)].filter((e) => e.getClientRects().length > 0)
    const r = els.map((e) => ({ e, b: e.getBoundingClientRect() }))
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.className ? '.' + String(e.className).split(' ').join('.') : ''}[${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 30)}]`
    const out: string[] = []
    for (const { e, b } of r)
      if (b.left < box.left - 0.5 || b.right > box.right + 0.5)
        out.push(`${name(e)} runs out (${Math.round(b.left)}..${Math.round(b.right)} of ${Math.round(box.left)}..${Math.round(box.right)})`)
    for (let i = 0; i < r.length; i++)
      for (let j = i + 1; j < r.length; j++) {
        const [a, c] = [r[i].b, r[j].b]
        if (r[i].e.contains(r[j].e) || r[j].e.contains(r[i].e)) continue
        const w = Math.min(a.right, c.right) - Math.max(a.left, c.left)
        const h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top)
        if (w > 0.5 && h > 0.5) out.push(`${name(r[i].e)} overlaps ${name(r[j].e)}`)
      }
    if (box0.scrollWidth > box0.clientWidth + 1) out.push(`scrolls sideways (${box0.scrollWidth} > ${box0.clientWidth})`)
    return { out, n: els.length }
  }, parts)
  expect(bad.n, `${what}: nothing matched ${parts}`).toBeGreaterThan(0)
  expect(bad.out, `${what}: ${bad.out.join('; ')}`).toEqual([])
}

/** Plain words (letters only, as "outcome") split across two lines inside `loc` ("outco me" at 420 px). */
export function wordsBroken(loc: Locator): Promise<string[]> {
  return loc.evaluate((box0) => {
    const out: string[] = []
    const walker = document.createTreeWalker(box0, NodeFilter.SHOW_TEXT)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.parentElement || n.parentElement.closest('pre, code, .mono, [hidden]')) continue
      for (const m of (n.textContent ?? '').matchAll(/[A-Za-z]{2,15}/g)) {
        const r = document.createRange()
        r.setStart(n, m.index ?? 0)
        r.setEnd(n, (m.index ?? 0) + m[0].length)
        const lines = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)))
        if (lines.size > 1) out.push(m[0])
      }
    }
    return out
  })
}
