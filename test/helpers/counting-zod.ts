// zod with its lower-case builders (z.object, z.string, z.tuple, …) counting their calls, for the
// tests that check a schema is built at its first use and not when its module loads
// (docs/performance.md, memory). In the test file:
//   vi.mock('zod', async (importOriginal) => (await import('../helpers/counting-zod')).countingZod(importOriginal))
// (the factory imports this file itself: vi.mock is hoisted above the file's imports), and read
// `zodBuilds.n` before and after what is measured.

/** How many builder calls the counting zod has made in this test file. */
export const zodBuilds = { n: 0 }

type Zod = typeof import('zod')

/** zod as `importOriginal` gives it, its `z`'s lower-case builders counting into zodBuilds. */
export async function countingZod(importOriginal: <T = unknown>() => Promise<T>): Promise<Zod> {
  const real = await importOriginal<Zod>()
  const z: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(real.z))
    z[k] =
      typeof v === 'function' && /^[a-z]/.test(k)
        ? (...a: unknown[]) => {
            zodBuilds.n++
            return (v as (...a: unknown[]) => unknown)(...a)
          }
        : v
  return { ...real, z } as unknown as Zod
}
