'use strict';
/**
 * `node bench/doors.js`: only the doors' rows of `npm run bench` (MCP tools/call vs POST
 * /text/echo, A2A SendMessage vs a /talk JSON turn, each door's SDK alone beside the same
 * baseline, a talk turn with one tool call beside a plain turn plus the capability over HTTP), printed, not written to BENCHMARKS.md — e.g. a quick check:
 *   BENCH_SKIP_BUILD=1 BENCH_SECONDS=2 BENCH_ROUNDS=1 node bench/doors.js
 * Env: BENCH_DATABASE_URL, BENCH_SKIP_BUILD=1, BENCH_SECONDS (5), BENCH_ROUNDS (3),
 * BENCH_DOORS (rows to run, comma-separated among mcp, a2a, tools, each with its floor; default all), e.g. BENCH_DOORS=a2a.
 */
const { execSync } = require('node:child_process');
const path = require('node:path');
const db = require('./lib/db');
const { startAgent } = require('./lib/server');
const { doorScenarios } = require('./lib/doors');

const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function main() {
  if (!process.env.BENCH_SKIP_BUILD) execSync('npm run build', { stdio: 'inherit', cwd: path.join(__dirname, '..') });
  const database = await db.freshDatabase(SERVER, 'restap_bench_doors');
  const agent = await startAgent({ port: 3900 + Math.floor(Math.random() * 80), env: { DATABASE_URL: database.url, RESTAP_BENCH: '1', RESTAP_RATE_LIMIT: '0' } });
  let missed = 0;
  try {
    await doorScenarios({
      agent,
      databaseUrl: database.url,
      seconds: Number(process.env.BENCH_SECONDS) || 5,
      rounds: Number(process.env.BENCH_ROUNDS) || 3,
      connections: 16,
      only: process.env.BENCH_DOORS ? process.env.BENCH_DOORS.split(',').map((row) => row.trim()) : undefined,
      record: (scenario, figure, baseline, ratio, target, pass, note) => {
        if (!pass) missed++;
        console.log(`${pass ? 'PASS' : 'MISS'}  ${scenario}: ${figure} vs ${baseline} = ${ratio} (target ${target}) — ${note}`);
      },
    });
  } finally {
    await agent.stop();
  }
  process.exitCode = missed ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
