'use strict';
/**
 * `node bench/cold-start.js`: the built sample's cold start to its first answer (issue 41): from
 * spawn to the first 200 on /.well-known/restap.json, with a PostgreSQL server whose database the
 * sample has already migrated once (a first start, which runs the migrations, is shown apart).
 * Each variant starts RUNS times in turn; the medians are printed, with the CPU time the process had
 * used by its first answer (user + system, from /proc), which a busy host stretches less than the
 * wall clock. Variants: the sample as shipped, RESTAP_AGUI=0, RESTAP_AGUI=0 RESTAP_PLAYGROUND=0.
 * Env: BENCH_DATABASE_URL (server; default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_DATABASE_NAME (default restap_cold_start, dropped and re-created), RUNS (default 5).
 */
const { spawn } = require('node:child_process');
const db = require('./lib/db');
const { MAIN, cpuMsOf } = require('./lib/server');

const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = Number(process.env.RUNS) || 5;
const VARIANTS = [
  ['as shipped', {}],
  ['RESTAP_AGUI=0', { RESTAP_AGUI: '0' }],
  ['RESTAP_AGUI=0 RESTAP_PLAYGROUND=0', { RESTAP_AGUI: '0', RESTAP_PLAYGROUND: '0' }],
];

/** Spawns the sample; resolves to { ms, cpuMs } at its first 200 on the catalog, then stops it. */
async function coldStart(env) {
  const port = 4100 + Math.floor(Math.random() * 800);
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the sample exited (${child.exitCode}): ${stderr}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/.well-known/restap.json`);
        await res.arrayBuffer();
        if (res.status === 200) return { ms: Number(process.hrtime.bigint() - started) / 1e6, cpuMs: cpuMsOf(child.pid) };
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const database = await db.freshDatabase(SERVER, process.env.BENCH_DATABASE_NAME || 'restap_cold_start');
  const env = { DATABASE_URL: database.url, RESTAP_PACKAGES_DIR: process.env.RESTAP_PACKAGES_DIR || 'dist/packages' };
  const first = await coldStart(env);
  console.log(`first start (runs the migrations): ${first.ms.toFixed(0)} ms, CPU ${first.cpuMs} ms`);
  const results = VARIANTS.map(() => []);
  for (let run = 0; run < RUNS; run++) {
    for (const [k, [, extra]] of VARIANTS.entries()) results[k].push(await coldStart({ ...env, ...extra }));
  }
  for (const [k, [name]] of VARIANTS.entries()) {
    const rs = results[k];
    console.log(`${name}: median ${median(rs.map((r) => r.ms)).toFixed(0)} ms to the first answer (runs ${rs.map((r) => r.ms.toFixed(0)).join(', ')}), CPU median ${median(rs.map((r) => r.cpuMs))} ms`);
  }
}

module.exports = { coldStart };

if (require.main === module) {
  main().catch((error) => {
    console.error(error.message ?? error);
    process.exit(1);
  });
}
