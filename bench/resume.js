'use strict';
/**
 * `node bench/resume.js`: what resumable /talk streams (`talk.resume`, issue 37) cost. Two sample
 * agents on one fresh database, identical but for RESTAP_TALK_RESUME (0 / 1), measured in
 * alternating pairs so a busy machine weighs on both alike: POST /talk SSE streams/s (every frame
 * numbered, the turn's frames written with the turn) and POST /talk JSON req/s (unchanged path),
 * with the agents' CPU per request; then the database's share alone (the frames' INSERT beside the turn
 * write, each alone, raw pg). The median pair's ratio is reported; the JSON row, whose path
 * the option does not touch, shows how far apart two identical agents measure on this machine.
 * Env: BENCH_DATABASE_URL, BENCH_DATABASE_NAME (default restap_bench_resume), BENCH_SKIP_BUILD=1,
 * BENCH_SECONDS (per run, default 3), BENCH_ROUNDS (pairs, default 10), BENCH_RESUME_ROWS=db (the
 * database row only).
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

/**
 * The database's share alone, from 16 raw pg clients in alternating pairs: the module's own turn
 * write (8 turns a statement, as under load) and the frames INSERT of those turns' final runs
 * (what 8 short resumable SSE turns add), each alone: their statements/s give the INSERT's cost as
 * a share of the turn write's.
 */
async function statementRow(url, fmt) {
  const { randomBytes } = require('node:crypto');
  const dist = path.join(__dirname, '..', 'dist', 'apps', 'sample-agent', 'libs', 'restap', 'src', 'persistence');
  const { APPEND_TURNS } = require(path.join(dist, 'typeorm-session.store.js'));
  const { APPEND_FRAMES } = require(path.join(dist, 'typeorm-talk-frame.store.js'));
  const pool = new db.Pool({ connectionString: url, max: CONNECTIONS });
  const TURNS = 8;
  const params = (frames) => {
    const keys = [];
    const ids = [];
    const cols = [[], [], [], [], [], []];
    for (let k = 0; k < TURNS; k++) {
      const key = randomBytes(32);
      const msg = `msg_${randomBytes(9).toString('base64url')}`;
      keys.push(key, key);
      ids.push(`msg_${randomBytes(9).toString('base64url')}`, msg);
      if (frames) {
        const kept = JSON.stringify([
          ['message.start', JSON.stringify({ event: 'message.start', id: msg })],
          ['message.delta', JSON.stringify({ event: 'message.delta', id: msg, text: 'Hello from the bench.' })],
          ['message.end', JSON.stringify({ event: 'message.end', id: msg })],
        ]);
        [msg, 1, 3, key, kept, 'final'].forEach((v, c) => cols[c].push(v));
      }
    }
    const now = new Date().toISOString();
    const base = [keys, ids, keys.map((_, i) => (i % 2 ? 'assistant' : 'user')), keys.map(() => 'hi'), keys.map(() => 'complete'), keys.map(() => now), keys.map(() => null)];
    return { turns: base, frames: cols };
  };
  const turnsOnly = async () => {
    await pool.query({ name: APPEND_TURNS.name, text: APPEND_TURNS.text, values: params(false).turns });
  };
  const framesOnly = async () => {
    await pool.query({ name: APPEND_FRAMES.name, text: APPEND_FRAMES.text, values: params(true).frames });
  };
  const run = (op) => () => load.loop({ op, concurrency: CONNECTIONS, seconds: SECONDS });
  try {
    // Statements per second of each, alone: the frames' INSERT costs the database turn-write/frames of a turn write.
    const pair = await abba(ROUNDS, run(framesOnly), run(turnsOnly));
    console.log(
      `DB share (raw pg, ${CONNECTIONS} clients): the frames INSERT of ${TURNS} turns' final runs ${fmt(pair.base.rps)}/s (p50 ${fmt(pair.base.p50, 2)} ms) vs the turn write of ${TURNS} turns ${fmt(pair.run.rps)}/s (p50 ${fmt(pair.run.p50, 2)} ms): the frames add ${fmt(100 * pair.ratio, 1)} % of a turn write's database time (median pair; per pair ${pair.ratios}); errors ${pair.run.errors + pair.base.errors}`,
    );
  } finally {
    await pool.end();
  }
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
    const rows = process.env.BENCH_RESUME_ROWS === 'db' ? [] : [['talk SSE streams', 'text/event-stream'], ['talk JSON POST', undefined]];
    for (const [name, accept] of rows) {
      const pair = await abba(ROUNDS, run(off, accept), run(on, accept));
      const errors = pair.run.errors + pair.run.non2xx + pair.base.errors + pair.base.non2xx;
      console.log(
        `${name}: resume on ${fmt(pair.run.rps)}/s (CPU ${fmt(pair.run.cpuPerReq, 3)} ms/req) vs off ${fmt(pair.base.rps)}/s (CPU ${fmt(pair.base.cpuPerReq, 3)} ms/req) = ${fmt(pair.ratio, 3)}x median; per pair ${pair.ratios}; errors ${errors}`,
      );
    }
    await statementRow(database.url, fmt);
  } finally {
    await off.stop();
    await on.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
