// Prints the closing line CI reads (.ci/run sums every "N passed, M failed" line): tests that did not run after a failure are named apart.
import type { FullResult, Reporter, Suite, TestError } from '@playwright/test/reporter'

export default class CountReporter implements Reporter {
  private suite: Suite | undefined
  private errors = 0

  onBegin(_config: unknown, suite: Suite): void {
    this.suite = suite
  }

  /** an error outside any test (global setup, a spec file that does not load) */
  onError(_error: TestError): void {
    this.errors++
  }

  onEnd(result: FullResult): void {
    let passed = 0
    let failed = 0
    let notRun = 0
    for (const t of this.suite?.allTests() ?? []) {
      const outcome = t.outcome()
      if (outcome === 'expected' || outcome === 'flaky') passed++
      else if (outcome === 'unexpected') failed++
      else notRun++
    }
    // a run that failed with no failing test (setup, a broken file, an interrupt) is one failure
    if (failed === 0 && (this.errors > 0 || result.status !== 'passed')) failed = Math.max(1, this.errors)
    process.stdout.write(`\ne2e-browser: ${passed} passed, ${failed} failed${notRun ? `, ${notRun} not run` : ''}\n`)
  }

  printsToStdio(): boolean {
    return false
  }
}
