'use strict';
/**
 * `node bench/resume.js`: what resumable /talk streams (`talk.resume`, issue 37) cost. Two sample
 * agents on one fresh database, identical but for RESTAP_TALK_RESUME (0 / 1), measured in
 * alternating pairs so a busy machine weighs on both alike: POST /talk SSE streams/s (every frame
 * numbered, the turn's frames written with the turn) and POST /talk JSON req/s (unchanged path),
 * with the agents' CPU per request. The median pair's ratio is reported; the JSON row, whose path
 * the option does not touch, shows how far apart two identical agents measure on this machine.
 * Env: BENCH_DATABASE_URL, BENCH_DATABASE_NAME (default restap_bench_resume), BENCH_SKIP_BUILD=1,
 * BENCH_SECONDS (per run, default 3), BENCH_ROUNDS (pairs, default 10).
 */
const { execSync } = require('node:child_process');
const path = require('node:path');
const db = require('./lib/db');
const load = require('./lib/load');
const { startAgent } = require('./lib/server');

const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS) || 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 10;
const CONNECTIONS = 16;

/**
 * Pairs in alternating order (off then on, on then off, …): whichever runs second in a pair meets
 * a warmer or a busier machine by turns, not always the same agent. The median pair is returned.
 */
async function abba(rounds, baseline, scenario) {
  const pairs = [];
  for (let round = 0; round < rounds; round++) {
    let base;
    let run;
    if (round % 2 === 0) {
      base = await baseline();
      run = await scenario();
    } else {
      run = await scenario();
      base = await baseline();
    }
    pairs.push({ base, run, ratio: run.rps / base.rps });
  }
  const sorted = [...pairs].sort((a, b) => a.ratio - b.ratio);
  return { ...sorted[Math.floor(sorted.length / 2)], ratios: pairs.map((p) => p.ratio.toFixed(2)).join(', ') };
}

async function main() {
  if (!process.env.BENCH_SKIP_BUILD) execSync('npm run build', { stdio: 'inherit', cwd: path.join(__dirname, '..') });
  const database = await db.freshDatabase(SERVER, process.env.BENCH_DATABASE_NAME || 'restap_bench_resume');
  const env = (resume) => ({ DATABASE_URL: database.url, RESTAP_BENCH: '1', RESTAP_RATE_LIMIT: '0', RESTAP_TALK_RESUME: resume });
  const off = await startAgent({ port: 3900 + Math.floor(Math.random() * 40), env: env('0') });
  const on = await startAgent({ port: 3950 + Math.floor(Math.random() * 40), env: env('1') });
  const json = { 'content-type': 'application/json' };
  const body = JSON.stringify({ message: 'hi' });
  const run = (agent, accept) => async () => {
    const before = agent.cpuMs();
    const result = await load.http({ url: `${agent.url}/talk`, method: 'POST', headers: { ...json, ...(accept ? { accept } : {}) }, body, connections: CONNECTIONS, seconds: SECONDS });
    result.cpuPerReq = (agent.cpuMs() - before) / Math.max(1, result.total);
    return result;
  };
  const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
  try {
    for (const [name, accept] of [['talk SSE streams', 'text/event-stream'], ['talk JSON POST', undefined]]) {
      const pair = await abba(ROUNDS, run(off, accept), run(on, accept));
      const errors = pair.run.errors + pair.run.non2xx + pair.base.errors + pair.base.non2xx;
      console.log(
        `${name}: resume on ${fmt(pair.run.rps)}/s (CPU ${fmt(pair.run.cpuPerReq, 3)} ms/req) vs off ${fmt(pair.base.rps)}/s (CPU ${fmt(pair.base.cpuPerReq, 3)} ms/req) = ${fmt(pair.ratio, 3)}x median; per pair ${pair.ratios}; errors ${errors}`,
      );
    }
  } finally {
    await off.stop();
    await on.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
