'use strict';
/**
 * `npm run bench`: builds the sample, starts it on loopback against real PostgreSQL with the
 * instant bench-mode talk handler, measures each scenario beside its baseline in the same run,
 * prints a table and writes BENCHMARKS.md. Loopback only; every step is bounded in time.
 *
 * Env: BENCH_DATABASE_URL (server to use; default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_DATABASE_NAME (the database dropped and re-created there; default restap_bench),
 * BENCH_SECONDS (per scenario, default 5), BENCH_ROUNDS (baseline/scenario pairs, default 3),
 * BENCH_CPU_ROUNDS (pairs for the judged /talk CPU row, default 7: three pairs spread 1.05-1.68 on this VM),
 * BENCH_SKIP_BUILD=1, BENCH_NEWS_ROWS (default 1000000), BENCH_IDLE_STREAMS (5000), BENCH_IDLE_POLLS (5000),
 * BENCH_IDLE_WINDOW_MS (6000) for the idle step, BENCH_HELD_POLLS (1000), BENCH_POST_RATE (200/s),
 * BENCH_DATABASE_NAME (default restap_bench), BENCH_POST_SECONDS (10) for the long-poll scenario (alone: `node bench/long-poll.js`). The doors' rows
 * (MCP, A2A, talk with a tool call) run alone as `node bench/doors.js`. The last step counts instructions per request
 * of each path beside its floor (bench/lib/floor-table.js; BENCH_INSTRUCTIONS=0 skips it).
 */
const { execSync } = require('node:child_process');
const http = require('node:http');
const os = require('node:os');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const load = require('./lib/load');
const sse = require('./lib/sse');
const db = require('./lib/db');
const { startAgent } = require('./lib/server');
const { startExpressFloor } = require('./lib/express-floor');
const { startTalkFloor } = require('./lib/talk-floor');
const { longPollScenario } = require('./lib/long-poll');
const longPoll = require('./long-poll');
const { doorScenarios } = require('./lib/doors');
const { floorTable } = require('./lib/floor-table');
const { coldStart } = require('./cold-start');

const SECONDS = Number(process.env.BENCH_SECONDS) || 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3;
const CPU_ROUNDS = Number(process.env.BENCH_CPU_ROUNDS) || 7;
const CONNECTIONS = 16;
const NEWS_ROWS = Number(process.env.BENCH_NEWS_ROWS) || 1_000_000;
// 9,500 + 9,500: the issue asks for 10,000 + 10,000, but a process here may hold 20,000 descriptors at most (ulimit -Hn,
// not raisable in this sandbox) and both the agent and this bench hold one per connection plus their own.
const IDLE_STREAMS = Number(process.env.BENCH_IDLE_STREAMS ?? 9500);
const IDLE_POLLS = Number(process.env.BENCH_IDLE_POLLS ?? 9500);
const IDLE_WINDOW_MS = Number(process.env.BENCH_IDLE_WINDOW_MS) || 6000;
const HEARTBEAT_MS = 1000;
// The idle step's agent: Node 24 sizes its young generation from the heap limit; docs/operations.md advises Node 20's 16 MB
// for an instance meant to hold many idle connections (BENCH_IDLE_NODE_ARGS='' runs it with Node's defaults).
const IDLE_NODE_ARGS = (process.env.BENCH_IDLE_NODE_ARGS ?? '--max-semi-space-size=16').split(/\s+/).filter(Boolean);
const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** The database the run drops and re-creates on SERVER: give each concurrent run its own (BENCH_DATABASE_NAME). */
const DATABASE_NAME = process.env.BENCH_DATABASE_NAME || 'restap_bench';
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(DATABASE_NAME)) throw new Error(`BENCH_DATABASE_NAME must be a lower-case identifier, got ${JSON.stringify(DATABASE_NAME)}`);
/** BENCH_ONLY=talk,news-get runs only those steps (and writes no BENCHMARKS.md): one of STEPS. */
const STEPS = ['discovery', 'talk', 'sse', 'news-post', 'floors', 'news-get', 'idle', 'long-poll', 'doors', 'cold-start', 'instructions'];
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((x) => x.trim()) : null;
for (const step of ONLY ?? []) if (!STEPS.includes(step)) throw new Error(`BENCH_ONLY: unknown step ${step}; steps: ${STEPS.join(', ')}`);
const runs = (step) => !ONLY || ONLY.includes(step);
const rows = [];
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

function record(scenario, figure, baseline, ratio, target, pass, note = '') {
  rows.push({ scenario, figure, baseline, ratio, target, pass, note });
  console.log(`${pass ? 'PASS' : 'MISS'}  ${scenario}: ${figure}${baseline ? ` vs ${baseline}` : ''}${ratio ? ` = ${ratio}` : ''} (target ${target})${note ? ` — ${note}` : ''}`);
}

async function bareNode(bytes) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
    res.end(bytes);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Measures a scenario against its baseline in ROUNDS alternating pairs, by throughput (load.paired). */
const paired = (baseline, scenario) => load.paired(ROUNDS, baseline, scenario, (run, base) => run.rps / base.rps);

/** Runs an autocannon scenario against the agent (or a floor: anything with cpuMs()) and adds its CPU ms per request. */
async function agentLoad(agent, opts) {
  const before = agent.cpuMs();
  const result = await load.http(opts);
  result.cpuPerReq = (agent.cpuMs() - before) / Math.max(1, result.total);
  return result;
}

async function main() {
  if (!process.env.BENCH_SKIP_BUILD) execSync('npm run build', { stdio: 'inherit', cwd: path.join(__dirname, '..') });
  const database = await db.freshDatabase(SERVER, DATABASE_NAME);
  const pool = new db.Pool({ connectionString: database.url, max: CONNECTIONS });
  const agentEnv = {
    DATABASE_URL: database.url, RESTAP_BENCH: '1', RESTAP_HEARTBEAT_MS: String(HEARTBEAT_MS), RESTAP_RATE_LIMIT: '0',
    // The bench is one client (IP): its idle step needs the per-client caps raised; the totals keep
    // the module defaults (5000 streams, 5000 held polls) unless the step asks for more.
    RESTAP_MAX_STREAMS_PER_CLIENT: String(Math.max(50, IDLE_STREAMS, IDLE_POLLS)),
    ...(Math.max(IDLE_STREAMS, IDLE_POLLS) > 5000 ? { RESTAP_MAX_STREAMS: String(Math.max(IDLE_STREAMS, IDLE_POLLS)) } : {}),
  };
  const agent = await startAgent({ port: 3900 + Math.floor(Math.random() * 90), env: agentEnv });
  try {
    await db.createBaselineTables(pool);
    const json = { 'content-type': 'application/json' };

    if (runs('discovery')) {
      // 1. Discovery vs a bare node:http server sending the same bytes.
      const catalogBytes = Buffer.from(await (await fetch(`${agent.url}/.well-known/restap.json`)).arrayBuffer());
      const bare = await bareNode(catalogBytes);
      const discovery = await paired(
        () => load.http({ url: `${bare.url}/.well-known/restap.json`, connections: CONNECTIONS, seconds: SECONDS }),
        () => agentLoad(agent, { url: `${agent.url}/.well-known/restap.json`, connections: CONNECTIONS, seconds: SECONDS }),
      );
      await bare.close();
      const { run: disc, base: bareRun } = discovery;
      record('discovery GET', `${fmt(disc.rps)} req/s`, `bare node ${fmt(bareRun.rps)} req/s`, `${fmt(discovery.ratio, 2)}x`, '>= 0.30x', discovery.ratio >= 0.3, `agent CPU ${fmt(disc.cpuPerReq, 3)} ms/req, errors ${disc.errors + disc.non2xx}; ratio per round ${discovery.ratios}`);

      // The floor under talk and news: a Nest route that touches no database (the sample's liveness).
      const floor = await agentLoad(agent, { url: `${agent.url}/health/live`, connections: CONNECTIONS, seconds: SECONDS });
      record('Nest floor: GET /health/live (no DB)', `${fmt(floor.rps)} req/s`, '', '', 'reported', true, `agent CPU ${fmt(floor.cpuPerReq, 3)} ms/req — Express + Nest routing alone`);

    }

    if (runs('talk')) {
      // 2. POST /talk JSON (turn persisted) vs raw BEGIN; INSERT; COMMIT.
      const turns = await paired(
        () => load.loop({ op: db.turnTransaction(pool), concurrency: CONNECTIONS, seconds: SECONDS }),
        () => agentLoad(agent, { url: `${agent.url}/talk`, method: 'POST', headers: json, body: JSON.stringify({ message: 'hi' }), connections: CONNECTIONS, seconds: SECONDS }),
      );
      const { run: talk, base: rawTurn } = turns;
      record('talk JSON POST', `${fmt(talk.rps)} req/s`, `raw BEGIN/INSERT/COMMIT ${fmt(rawTurn.rps)} tx/s`, `${fmt(turns.ratio, 2)}x`, 'reported', talk.errors + talk.non2xx === 0, `p50 ${talk.p50} ms, p99 ${talk.p99} ms, agent CPU ${fmt(talk.cpuPerReq, 3)} ms/req, raw client CPU ${fmt(rawTurn.cpuPerOp, 3)} ms/tx, errors ${talk.errors + talk.non2xx}; ratio per round ${turns.ratios}`);

    }

    if (runs('sse')) {
      // 3. POST /talk SSE: whole streams per second, first-frame latency idle and under load.
      const stream = await load.http({ url: `${agent.url}/talk`, method: 'POST', headers: { ...json, accept: 'text/event-stream' }, body: JSON.stringify({ message: 'hi' }), connections: CONNECTIONS, seconds: SECONDS });
      record('talk SSE streams', `${fmt(stream.rps)} streams/s`, '', '', 'reported', true, `errors ${stream.errors + stream.non2xx}`);
      const idle = [];
      for (let i = 0; i < 300; i++) idle.push(await sse.firstFrameMs(agent.url));
      const idleP = load.percentiles(idle.slice(20));
      record('SSE first frame, idle', `p50 ${fmt(idleP.p50, 2)} ms, p99 ${fmt(idleP.p99, 2)} ms`, '', '', 'p50 <= 2 ms', idleP.p50 <= 2);
      const background = load.http({ url: `${agent.url}/talk`, method: 'POST', headers: json, body: JSON.stringify({ message: 'hi' }), connections: 8, seconds: Math.max(3, SECONDS) });
      await new Promise((r) => setTimeout(r, 500));
      const busy = [];
      const until = Date.now() + (Math.max(3, SECONDS) - 1) * 1000;
      while (Date.now() < until) busy.push(await sse.firstFrameMs(agent.url));
      await background;
      const busyP = load.percentiles(busy);
      record('SSE first frame, under talk load', `p50 ${fmt(busyP.p50, 2)} ms, p99 ${fmt(busyP.p99, 2)} ms`, '', '', 'reported', true, `${busy.length} samples beside 8 JSON talk connections`);

    }

    if (runs('news-post')) {
      // 4. POST /news vs raw single-row INSERT.
      const posts = await paired(
        () => load.loop({ op: db.newsInsert(pool), concurrency: CONNECTIONS, seconds: SECONDS }),
        () => agentLoad(agent, { url: `${agent.url}/news`, method: 'POST', headers: json, body: JSON.stringify({ type: 'note', message: 'hello' }), connections: CONNECTIONS, seconds: SECONDS }),
      );
      const { run: news, base: rawNews } = posts;
      record('news POST', `${fmt(news.rps)} req/s`, `raw INSERT ${fmt(rawNews.rps)} rows/s`, `${fmt(posts.ratio, 2)}x`, 'reported', news.errors + news.non2xx === 0, `p50 ${news.p50} ms, p99 ${news.p99} ms, agent CPU ${fmt(news.cpuPerReq, 3)} ms/req, raw client CPU ${fmt(rawNews.cpuPerOp, 3)} ms/row, errors ${news.errors + news.non2xx}; ratio per round ${posts.ratios}`);

      // The talk row's turn again, now that the feed holds the posts above: every new session's turn
      // carries the newest news.contextLimit (20) items, as on any agent whose feed is in use.
      const fed = await agentLoad(agent, { url: `${agent.url}/talk`, method: 'POST', headers: json, body: JSON.stringify({ message: 'hi' }), connections: CONNECTIONS, seconds: SECONDS });
      record('talk JSON POST, 20 news items in every turn (the feed in use)', `${fmt(fed.rps)} req/s`, '', '', 'reported', fed.errors + fed.non2xx === 0, `p50 ${fed.p50} ms, p99 ${fed.p99} ms, agent CPU ${fmt(fed.cpuPerReq, 3)} ms/req, errors ${fed.errors + fed.non2xx}; the talk row's turns carry none`);

    }

    if (runs('floors')) {
      // The ceiling under news POST: bare Express 5 with express.json() answering the same body, no
      // Nest, no module, no database, in its own process — what any Express handler can reach here.
      // Stock Express, and Express on a server that prebuilds its prototypes (as the sample's adapter).
      const floors = [
        ['stock', 'Express floor: bare Express 5 + express.json() POST (no Nest, no DB)', 'as Express ships'],
        ['prebuilt', 'Express floor, prototypes prebuilt (RestapExpressAdapter\'s server, as the sample)', 'the same app; requests built on Express\'s prototypes'],
      ];
      for (const [kind, scenario, what] of floors) {
        const express = await startExpressFloor(kind);
        const floorPosts = await paired(
          () => load.loop({ op: db.newsInsert(pool), concurrency: CONNECTIONS, seconds: SECONDS }),
          () => agentLoad(express, { url: `${express.url}/news`, method: 'POST', headers: json, body: JSON.stringify({ type: 'note', message: 'hello' }), connections: CONNECTIONS, seconds: SECONDS }),
        );
        await express.stop();
        const { run: bareExpress, base: rawNews2 } = floorPosts;
        record(scenario, `${fmt(bareExpress.rps)} req/s`, `raw INSERT ${fmt(rawNews2.rps)} rows/s`, `${fmt(floorPosts.ratio, 2)}x`, 'reported', true, `CPU ${fmt(bareExpress.cpuPerReq, 3)} ms/req; ${what}; ratio per round ${floorPosts.ratios}`);
      }

      // The floor under talk: a bare Nest route doing a new-session turn's storage work with the
      // module's own statements and batching, and nothing else; the gap to the talk row is the
      // module's (and the sample's) per-turn work.
      const floor = await startTalkFloor(database.url);
      const floorTurns = await paired(
        () => load.loop({ op: db.turnTransaction(pool), concurrency: CONNECTIONS, seconds: SECONDS }),
        () => agentLoad(floor, { url: `${floor.url}/talk`, method: 'POST', headers: json, body: JSON.stringify({ message: 'hi' }), connections: CONNECTIONS, seconds: SECONDS }),
      );
      const { run: floorTalk, base: rawTurn2 } = floorTurns;
      // Issue 41: the turn's CPU beside its floor's, in alternating pairs on the same body. The feed
      // holds news-post's items here, so both turns first carry the newest 20 (reported); then the
      // feed is emptied and the plain turn, as the talk row and the instructions row send it, is judged.
      const talkBody = { url: '/talk', method: 'POST', headers: json, body: JSON.stringify({ message: 'hi' }), connections: CONNECTIONS, seconds: SECONDS };
      const talkCpuAgainstFloor = (rounds) => load.paired(
        rounds,
        () => agentLoad(floor, { ...talkBody, url: `${floor.url}/talk` }),
        () => agentLoad(agent, { ...talkBody, url: `${agent.url}/talk` }),
        (run, base) => run.cpuPerReq / base.cpuPerReq,
      );
      const fedCpu = await talkCpuAgainstFloor(ROUNDS);
      await pool.query('TRUNCATE restap_news');
      await pool.query('DELETE FROM restap_news_sequences');
      const talkCpu = await talkCpuAgainstFloor(CPU_ROUNDS);
      record('/talk JSON turn: CPU vs its floor', `agent CPU ${fmt(talkCpu.run.cpuPerReq, 3)} ms/req`, `talk floor ${fmt(talkCpu.base.cpuPerReq, 3)} ms/req`, `${fmt(talkCpu.ratio, 2)}x`, '<= 1.25x', talkCpu.ratio <= 1.25, `${fmt(talkCpu.run.rps)} vs ${fmt(talkCpu.base.rps)} req/s; an empty feed, as the talk row and the instructions row; the median of ${CPU_ROUNDS} pairs; CPU ratio per round ${talkCpu.ratios}`);
      record('/talk with 20 news items: CPU vs its floor', `agent CPU ${fmt(fedCpu.run.cpuPerReq, 3)} ms/req`, `talk floor ${fmt(fedCpu.base.cpuPerReq, 3)} ms/req`, `${fmt(fedCpu.ratio, 2)}x`, 'reported', true, `${fmt(fedCpu.run.rps)} vs ${fmt(fedCpu.base.rps)} req/s; the feed as news POST left it, both turns reading its newest 20 items (the floor reads them, the turn also puts them in the model's context); CPU ratio per round ${fedCpu.ratios}`);
      record('Talk floor: bare Nest route, the module\'s turn statements and batching (no RestapModule)', `${fmt(floorTalk.rps)} req/s`, `raw BEGIN/INSERT/COMMIT ${fmt(rawTurn2.rps)} tx/s`, `${fmt(floorTurns.ratio, 2)}x`, 'reported', true, `CPU ${fmt(floorTalk.cpuPerReq, 3)} ms/req, errors ${floorTalk.errors + floorTalk.non2xx}; news read + turn write as a new-session turn; ratio per round ${floorTurns.ratios}`);

      // The floor under news POST: the same bare app appending with the module's statement and batching.
      const floorPosts = await paired(
        () => load.loop({ op: db.newsInsert(pool), concurrency: CONNECTIONS, seconds: SECONDS }),
        () => agentLoad(floor, { url: `${floor.url}/news`, method: 'POST', headers: json, body: JSON.stringify({ type: 'note', message: 'hello' }), connections: CONNECTIONS, seconds: SECONDS }),
      );
      await floor.stop();
      const { run: floorNews, base: rawNews3 } = floorPosts;
      record('News floor: bare Nest route, the module\'s append statement and batching (no RestapModule)', `${fmt(floorNews.rps)} req/s`, `raw INSERT ${fmt(rawNews3.rps)} rows/s`, `${fmt(floorPosts.ratio, 2)}x`, 'reported', true, `CPU ${fmt(floorNews.cpuPerReq, 3)} ms/req, errors ${floorNews.errors + floorNews.non2xx}; group-committed append to the global feed, no wake-ups; ratio per round ${floorPosts.ratios}`);

    }

    if (runs('news-get')) {
      // 5. GET /news polls at 10k and at NEWS_ROWS items (seeded in bulk).
      await pool.query('TRUNCATE restap_news');
      await pool.query('DELETE FROM restap_news_sequences');
      let max = await db.seedNews(pool, 10_000);
      const poll = (since) => load.http({ url: `${agent.url}/news?since=${since}&limit=100`, connections: CONNECTIONS, seconds: SECONDS });
      const small = await poll(max - 10);
      max = await db.seedNews(pool, NEWS_ROWS - 10_000);
      const large = await poll(max - 10);
      // The same, but every connection polls from its own since: no two concurrent polls are alike
      // (limit 10, so each answer holds 10 items like the shared polls above). The store still reads
      // concurrent polls of one feed and limit in one statement, a page per distinct since.
      const distinct = await load.http({ url: `${agent.url}/news`, pathOf: (k) => `/news?since=${max - 10 - k}&limit=10`, connections: CONNECTIONS, seconds: SECONDS });
      const within = large.p99 <= Math.max(2 * small.p99, 1);
      const quiet = async (since) => {
        const times = [];
        for (let i = 0; i < 500; i++) {
          const t = process.hrtime.bigint();
          await (await fetch(`${agent.url}/news?since=${since}&limit=100`)).arrayBuffer();
          times.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
        return load.percentiles(times.slice(50));
      };
      const single = await quiet(max - 10);
      record(`news GET poll @${NEWS_ROWS / 1e6}M, one client`, `p50 ${fmt(single.p50, 2)} ms, p99 ${fmt(single.p99, 2)} ms`, '', '', 'p99 <= 10 ms', single.p99 <= 10, 'sequential polls (fetch client included): the latency one poller sees');
      record('news GET poll @10k', `p50 ${small.p50} ms, p99 ${small.p99} ms`, '', '', 'reported', true, `${fmt(small.rps)} req/s`);
      record(`news GET poll @${NEWS_ROWS / 1e6}M, ${CONNECTIONS} clients`, `p50 ${large.p50} ms, p99 ${large.p99} ms`, `@10k p99 ${small.p99} ms`, '', 'p99 <= 10 ms and <= 2x @10k', large.p99 <= 10 && within, `${fmt(large.rps)} req/s; every poller up to date, asking from the same since (identical polls share a statement)`);
      record(`news GET poll @${NEWS_ROWS / 1e6}M, ${CONNECTIONS} clients, each its own since`, `p50 ${distinct.p50} ms, p99 ${distinct.p99} ms`, '', '', 'p99 <= 8 ms', distinct.p99 <= 8 && distinct.errors + distinct.non2xx === 0, `${fmt(distinct.rps)} req/s, errors ${distinct.errors + distinct.non2xx}; no two concurrent polls alike; polls of one feed and limit still share a statement, one page per cursor`);

    }

    if (runs('idle')) {
      // 6. IDLE_STREAMS idle SSE streams + IDLE_POLLS held GET /news?wait= polls: peak RSS, bytes per
      // connection, every stream heartbeating on time, every poll still held (or answered empty at its timeout).
      // An agent of its own, started as docs/operations.md advises for an instance meant to hold many idle connections
      // (IDLE_NODE_ARGS): peak RSS is the process's whole life, and the shared agent came here from the load steps at ~420 MB.
      const idleAgent = await startAgent({ port: 3900 + Math.floor(Math.random() * 90), nodeArgs: IDLE_NODE_ARGS, env: agentEnv });
      try {
        const before = idleAgent.rssMb();
        const held = await sse.openIdleStreams(idleAgent.url, IDLE_STREAMS, 'bench:idle');
        const polls = await sse.openHeldPolls(idleAgent.url, IDLE_POLLS, { waitSeconds: 30 });
        const from = performance.now();
        await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
        const to = performance.now();
        const rssHeld = idleAgent.rssMb();
        const peak = idleAgent.peakRssMb();
        const beats = held.heartbeats(from, to);
        const wantBeats = Math.floor(IDLE_WINDOW_MS / HEARTBEAT_MS) - 1;
        const healthy = beats.filter((b) => b.started && b.count >= wantBeats).length;
        const maxGap = Math.max(...beats.map((b) => b.maxGap));
        const heldNow = polls.polls.filter((p) => p.held && p.errors === 0).length;
        const pollErrors = polls.polls.filter((p) => p.errors).length;
        const timeouts = polls.polls.reduce((n, p) => n + p.timeouts, 0);
        polls.close();
        held.close();
        const total = IDLE_STREAMS + IDLE_POLLS;
        const perConn = ((rssHeld - before) * 1024 * 1024) / total;
        const onTime = maxGap <= 2 * HEARTBEAT_MS;
        const pass = peak < 500 && healthy === IDLE_STREAMS && onTime && heldNow === IDLE_POLLS;
        record(
          `${total} idle connections (${IDLE_STREAMS} SSE streams + ${IDLE_POLLS} held news polls)`,
          `peak RSS ${fmt(peak)} MB`, `before ${fmt(before)} MB`, '', '< 500 MB, all heartbeating on time, all polls held', pass,
          `${fmt(perConn / 1024, 1)} KB per connection (RSS held ${fmt(rssHeld)} MB); ${healthy}/${IDLE_STREAMS} streams got >= ${wantBeats} heartbeats in ${IDLE_WINDOW_MS / 1000} s, max gap ${fmt(maxGap)} ms (heartbeat ${HEARTBEAT_MS} ms); started ${held.streams.filter((x) => x.started).length}, refused ${held.streams.filter((x) => x.errors).length}; polls held ${heldNow}/${IDLE_POLLS}, answered empty at timeout ${timeouts}, failed ${pollErrors}; a fresh agent started with ${IDLE_NODE_ARGS.join(' ') || 'no flags'} (docs/operations.md)`,
        );
      } finally {
        await idleAgent.stop();
      }
    }

    if (runs('long-poll')) {
      // 7. Long-poll across replicas: held GET /news?wait= polls on a fresh reader replica, woken by
      // posts through another replica on the same database (LISTEN/NOTIFY), each poll its own session.
      const { polls, rate, seconds } = longPoll.scale();
      const reader = await startAgent({ port: 3990 + Math.floor(Math.random() * 5), env: longPoll.agentEnv(database.url, polls) });
      try {
        const lp = await longPollScenario({ reader, writer: agent, polls, rate, seconds });
        const ok = lp.missing === 0 && lp.duplicates === 0 && lp.errors === 0;
        record(
          `long-poll: ${polls} held polls on one replica, ${rate} posts/s for ${seconds} s through another`,
          `commit→reply p50 ${fmt(lp.ack.p50, 1)} ms, p99 ${fmt(lp.ack.p99, 1)} ms`,
          `post sent→reply p50 ${fmt(lp.send.p50, 1)} ms, p99 ${fmt(lp.send.p99, 1)} ms`,
          '',
          'p99 <= 50 ms, none lost or repeated',
          ok && lp.ack.p99 <= 50,
          `${lp.delivered}/${lp.posted} delivered, ${lp.missing} missing, ${lp.duplicates} repeated, errors ${lp.errors}, 429s ${lp.refused}; reader RSS ${fmt(lp.rssHeld)} MB with the polls held, peak ${fmt(lp.peakRss)} MB; reader CPU ${fmt(lp.cpuPerItem, 3)} ms per delivered item, writer CPU ${fmt(lp.writerCpuPerPost, 3)} ms per post; commit = the POST's acknowledgement as the bench sees it`,
        );
      } finally {
        await reader.stop();
      }

    }

    if (runs('doors')) {
      // 8. The doors (issue 19): MCP tools/call and A2A SendMessage beside their HTTP twins by agent
      // CPU per request, and a talk turn with one tool call on a fake model (alone: node bench/doors.js).
      // A failure there (a door answering wrong during warm-up) is a missed row, not a lost report.
      await doorScenarios({ agent, databaseUrl: database.url, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, record }).catch((error) =>
        record('doors: MCP, A2A, talk with a tool call', 'did not run', '', '', 'runs', false, String(error?.message ?? error).replace(/[|\n]/g, ' ').slice(0, 300)));
    }

    if (runs('cold-start')) {
      // 9. Cold start of the sample to its first answer with a PostgreSQL server (its database already
      // migrated by the agent above): the median of 3 starts, wall clock and the CPU it took.
      const starts = [];
      for (let i = 0; i < 3; i++) starts.push(await coldStart({ DATABASE_URL: database.url, RESTAP_BENCH: '1' }));
      const mid = (xs) => [...xs].sort((a, b) => a - b)[1];
      const wall = mid(starts.map((r) => r.ms));
      record('cold start of the sample to its first answer (PostgreSQL server)', `${fmt(wall)} ms`, '', '', '<= 3000 ms', wall <= 3000, `CPU ${fmt(mid(starts.map((r) => r.cpuMs)))} ms; starts ${starts.map((r) => fmt(r.ms)).join(', ')} ms; disabled doors' modules and SDKs are not loaded`);
    }

  } finally {
    await agent.stop();
    await pool.end();
  }
  if (runs('instructions') && process.env.BENCH_INSTRUCTIONS !== '0') {
    // 10. Issue 41's table: each path beside its floor in instructions per request (callgrind), after the
    // wall-clock rows, with the agent above stopped.
    await floorTable({ record, databaseName: `${DATABASE_NAME}_instr` }).catch((error) =>
      record('instructions vs floors', 'did not run', '', '', 'runs', false, String(error?.message ?? error).replace(/[|\n]/g, ' ').slice(0, 300)));
  }
  if (ONLY) console.log('BENCH_ONLY set: BENCHMARKS.md not written.');
  else writeReport(database.version);
}

function writeReport(pgVersion) {
  const versions = (name) => JSON.parse(readFileSync(path.join(__dirname, '..', 'node_modules', name, 'package.json'), 'utf8')).version;
  const lines = [
    '# Benchmarks',
    '',
    `Measured by \`npm run bench\` on ${new Date().toISOString()}; every figure beside its baseline from the same run.`,
    '',
    `- Machine: ${os.cpus()[0].model}, ${os.cpus().length} cores, ${fmt(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; PostgreSQL ${pgVersion}; @nestjs/core ${versions('@nestjs/core')}; typeorm ${versions('typeorm')}; pg ${versions('pg')}; autocannon ${versions('autocannon')}`,
    `- ${SECONDS} s per scenario, ${CONNECTIONS} connections unless stated; load generator in the same 2-core machine (so absolute figures are conservative).`,
    `- Ratios: ${ROUNDS} alternating baseline/scenario pairs; the table shows the pair with the median ratio, and the notes every pair's ratio.`,
    '',
    '| scenario | figure | baseline | ratio | target | result | notes |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.scenario} | ${r.figure} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.pass ? 'met' : 'missed'} | ${r.note} |`),
    '',
  ];
  const file = path.join(__dirname, '..', 'BENCHMARKS.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const profile = previous.includes('## Profile') ? previous.slice(previous.indexOf('## Profile')) : '';
  writeFileSync(file, lines.join('\n') + (profile ? `\n${profile}` : ''));
  console.log(`\nwrote ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
