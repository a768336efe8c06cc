// Preloaded into a benchmarked toolgate process (node --expose-gc --require bench/lib/gc-hook.cjs …)
// so a benchmark can ask for a "settled" memory reading: on SIGUSR2 the process runs a full GC
// twice and writes process.memoryUsage() as JSON to $TOOLGATE_BENCH_MEM_FILE. With
// $TOOLGATE_BENCH_HEAP_SNAPSHOT set it also writes a heap snapshot there, after the reading and
// before the reading's file (so a reader waiting for that file finds the snapshot complete).
'use strict'
const fs = require('node:fs')
const file = process.env.TOOLGATE_BENCH_MEM_FILE
const snapshot = process.env.TOOLGATE_BENCH_HEAP_SNAPSHOT
if (file) {
  process.on('SIGUSR2', () => {
    if (typeof global.gc === 'function') {
      global.gc()
      global.gc()
    }
    const m = process.memoryUsage()
    if (snapshot) require('node:v8').writeHeapSnapshot(snapshot)
    fs.writeFileSync(file + '.tmp', JSON.stringify({ ...m, at: Date.now() }))
    fs.renameSync(file + '.tmp', file)
  })
}
