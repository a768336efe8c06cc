// Preloaded into a benchmarked toolgate process (node --expose-gc --require bench/lib/gc-hook.cjs …)
// so a benchmark can ask for a "settled" memory reading: on SIGUSR2 the process runs a full GC
// twice and writes process.memoryUsage() as JSON to $TOOLGATE_BENCH_MEM_FILE. Nothing else.
'use strict'
const fs = require('node:fs')
const file = process.env.TOOLGATE_BENCH_MEM_FILE
if (file) {
  process.on('SIGUSR2', () => {
    if (typeof global.gc === 'function') {
      global.gc()
      global.gc()
    }
    const m = process.memoryUsage()
    fs.writeFileSync(file + '.tmp', JSON.stringify({ ...m, at: Date.now() }))
    fs.renameSync(file + '.tmp', file)
  })
}
