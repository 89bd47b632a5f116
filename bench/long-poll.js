'use strict';
/**
 * `node bench/long-poll.js`: only the long-poll scenario of `npm run bench` (issue 18), printed,
 * not written to BENCHMARKS.md — for a quick look at reduced scale, e.g.
 *   BENCH_SKIP_BUILD=1 BENCH_HELD_POLLS=100 BENCH_POST_RATE=50 BENCH_POST_SECONDS=3 node bench/long-poll.js
 * Env: BENCH_DATABASE_URL, BENCH_SKIP_BUILD=1, BENCH_HELD_POLLS (1000), BENCH_POST_RATE (200/s), BENCH_POST_SECONDS (10).
 */
const { execSync } = require('node:child_process');
const path = require('node:path');
const db = require('./lib/db');
const { startAgent } = require('./lib/server');
const { longPollScenario } = require('./lib/long-poll');

const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Env of an agent that holds `polls` polls from one client address (loopback). */
const agentEnv = (url, polls) => ({ DATABASE_URL: url, RESTAP_BENCH: '1', RESTAP_RATE_LIMIT: '0', RESTAP_MAX_STREAMS: String(Math.max(1000, polls * 2)) });

/** Scale from the environment, defaulting to the figures. */
function scale() {
  return {
    polls: Number(process.env.BENCH_HELD_POLLS) || 1000,
    rate: Number(process.env.BENCH_POST_RATE) || 200,
    seconds: Number(process.env.BENCH_POST_SECONDS) || 10,
  };
}

async function main() {
  if (!process.env.BENCH_SKIP_BUILD) execSync('npm run build', { stdio: 'inherit', cwd: path.join(__dirname, '..') });
  const database = await db.freshDatabase(SERVER, 'restap_bench_longpoll');
  const { polls, rate, seconds } = scale();
  const port = 3900 + Math.floor(Math.random() * 80);
  const reader = await startAgent({ port, env: agentEnv(database.url, polls) });
  const writer = await startAgent({ port: port + 1, env: agentEnv(database.url, polls) });
  try {
    const result = await longPollScenario({ reader, writer, polls, rate, seconds });
    console.log(JSON.stringify({ polls, rate, seconds, ...result }, null, 2));
  } finally {
    await writer.stop();
    await reader.stop();
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { agentEnv, scale };
