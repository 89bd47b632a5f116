'use strict';
/**
 * Preloaded (`-r`, with `--expose-gc`) into the process bench/instructions.js counts: SIGWINCH (not SIGUSR2: Nest's
 * enableShutdownHooks() shuts the app down on it; a terminal's resize signal, ignored by default) runs a full
 * garbage collection, then writes the count of such collections so far to RESTAP_BENCH_GC_DONE (a file), which
 * the bench waits for before it switches counting on. Every counted window then starts from the same heap state:
 * an empty young generation and an old generation just collected, so no major GC begun during the warm-up (its
 * incremental marking, its pause) lands in the window by chance.
 */
const { writeFileSync } = require('node:fs');

let collections = 0;
process.on('SIGWINCH', () => {
  globalThis.gc();
  collections++;
  if (process.env.RESTAP_BENCH_GC_DONE) writeFileSync(process.env.RESTAP_BENCH_GC_DONE, String(collections));
});
