'use strict';
/**
 * `node bench/cpu-split.js [news|talk]`: where a POST /news's (or a POST /talk JSON turn's) CPU
 * goes, the agent beside its floor (the bare Nest route of `npm run bench`'s floors step).
 * Alternating rounds of that POST at 16 connections against each; per request, from /proc: the
 * server's main thread (user, system), its other threads (GC helpers, libuv pool), PostgreSQL's
 * processes, its commits, the server's context switches, and this process's (the load
 * generator's) CPU. Prints each round and the medians; writes nothing.
 * Env: BENCH_DATABASE_URL, BENCH_SKIP_BUILD=1, BENCH_ROUNDS (6), BENCH_SECONDS (4).
 */
const { execSync } = require('node:child_process');
const { readFileSync, readdirSync } = require('node:fs');
const path = require('node:path');
const load = require('./lib/load');
const db = require('./lib/db');
const { startAgent } = require('./lib/server');
const { startTalkFloor } = require('./lib/talk-floor');

const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 6;
const SECONDS = Number(process.env.BENCH_SECONDS) || 4;
const NAME = 'restap_bench_split';
/** The request each round sends: POST /news (default) or a POST /talk JSON turn. */
const REQUESTS = {
  news: { path: '/news', body: JSON.stringify({ type: 'note', message: 'hello' }) },
  talk: { path: '/talk', body: JSON.stringify({ message: 'hi' }) },
};
const REQUEST = REQUESTS[process.argv[2] || 'news'];

/** utime and stime (ms) of one /proc stat file. */
function times(statFile) {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 };
}

/** A process's CPU (ms) split into its main thread and the rest; threads that end meanwhile are not counted. */
function threads(pid) {
  const out = { mainUser: 0, mainSys: 0, otherUser: 0, otherSys: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let t;
    try { t = times(`/proc/${pid}/task/${tid}/stat`); } catch { continue; }
    const main = Number(tid) === pid;
    out[main ? 'mainUser' : 'otherUser'] += t.user;
    out[main ? 'mainSys' : 'otherSys'] += t.sys;
  }
  return out;
}

/** CPU (ms) of every postgres process of the machine. */
function postgresMs() {
  let ms = 0;
  for (const pid of execSync('pgrep -x postgres || true').toString().split('\n').filter(Boolean)) {
    try { const t = times(`/proc/${pid}/stat`); ms += t.user + t.sys; } catch { /* ended */ }
  }
  return ms;
}

function contextSwitches(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]) + Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
}

async function snapshot(pool, pid) {
  const { rows } = await pool.query('SELECT xact_commit FROM pg_stat_database WHERE datname = $1', [NAME]);
  return { ...threads(pid), postgres: postgresMs(), commits: Number(rows[0].xact_commit), switches: contextSwitches(pid), loadgen: process.cpuUsage() };
}

/** One round of the POST against `server`; every figure per request (ms, or a count). */
async function round(pool, server) {
  const before = await snapshot(pool, server.pid);
  const result = await load.http({ url: `${server.url}${REQUEST.path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: REQUEST.body, connections: 16, seconds: SECONDS });
  const after = await snapshot(pool, server.pid);
  const per = (key) => (after[key] - before[key]) / Math.max(1, result.total);
  const loadgen = process.cpuUsage(before.loadgen);
  return {
    rps: result.rps, mainUser: per('mainUser'), mainSys: per('mainSys'), otherUser: per('otherUser'), otherSys: per('otherSys'),
    postgres: per('postgres'), commits: per('commits'), switches: per('switches'),
    loadgen: (loadgen.user + loadgen.system) / 1000 / Math.max(1, result.total), errors: result.errors + result.non2xx,
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const show = (figures) => Object.entries(figures).map(([k, v]) => `${k} ${k === 'rps' || k === 'errors' ? Math.round(v) : v.toFixed(4)}`).join(', ');

async function main() {
  if (!REQUEST) throw new Error(`usage: node bench/cpu-split.js [${Object.keys(REQUESTS).join('|')}]`);
  if (!process.env.BENCH_SKIP_BUILD) execSync('npm run build', { stdio: 'inherit', cwd: path.join(__dirname, '..') });
  const database = await db.freshDatabase(SERVER, NAME);
  const pool = new db.Pool({ connectionString: SERVER, max: 1 });
  // The agent first: its migrations create the tables the floor appends to.
  const agent = await startAgent({ port: 3800 + Math.floor(Math.random() * 90), env: { DATABASE_URL: database.url, RESTAP_BENCH: '1', RESTAP_RATE_LIMIT: '0' } });
  const floor = await startTalkFloor(database.url);
  const servers = { agent, floor };
  const results = { agent: [], floor: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of Object.keys(servers)) {
        results[name].push(await round(pool, servers[name]));
        console.log(`round ${r + 1} ${name}: ${show(results[name].at(-1))}`);
      }
    }
    for (const [name, list] of Object.entries(results)) {
      console.log(`median ${name}: ${show(Object.fromEntries(Object.keys(list[0]).map((k) => [k, median(list.map((x) => x[k]))])))}`);
    }
  } finally {
    await agent.stop();
    await floor.stop();
    await pool.end();
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
