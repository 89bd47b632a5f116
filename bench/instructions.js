'use strict';
/**
 * `npm run bench:instructions -- <scenario...>`: instructions the agent executes per request,
 * counted by valgrind's callgrind. CPU time on a shared VM drifts by 2x between runs; instruction
 * counts of the same build repeat within a few percent, so this is the tool for A/B comparisons of
 * a code change. Not part of `npm run bench` (it takes ~20-30 s per scenario and needs valgrind).
 *
 * The built sample runs under callgrind with instrumentation off; after WARM requests (JIT warm-up)
 * it is switched on for N requests at C connections, then the counts are dumped and summed.
 * Scenarios: live (GET /health/live), news (POST /news), news-get (GET /news?since=0&limit=10), news-get-since
 * (10k items seeded, each connection polls from its own since), talk (POST /talk JSON), talk-news
 * (the same with 20 items seeded: each turn carries them), catalog,
 * mcp (an MCP tools/call of text_echo on /mcp; its answer is checked, not only its status),
 * echo (POST /text/echo with the same text: the HTTP baseline the mcp figure is judged against, <= 1.3x),
 * mcp-discover (an MCP server/discover: the SDK's per-request floor, no tool behind it),
 * a2a (an A2A SendMessage on /a2a, answered by the talk handler; its answer is checked),
 * mcp-floor and a2a-floor (the same MCP tools/call and A2A SendMessage answered by the official SDK
 * alone, bench/lib/mcp-floor.js and a2a-floor.js, counted in that process instead of the agent's),
 * express-floor (a JSON POST answered by bare Express with express.json() on the agent's HTTP server,
 * bench/lib/express-floor.js 'prebuilt': the HTTP work every JSON POST pays, whatever answers it),
 * talk-floor and news-floor (the talk and news scenarios answered by the bench's talk and news
 * floors, bench/lib/talk-floor.js: a bare Nest route with the module's statements and batching);
 * talk-news-floor (the talk floor with the same 20 items seeded), agui (an AG-UI run, SSE, a new
 * thread, through POST /ag-ui) and agui-floor (the same run answered by @ag-ui/core's schema and
 * @ag-ui/encoder alone, bench/lib/agui-floor.js), talk-sse and talk-resume (a /talk SSE turn with
 * RESTAP_TALK_RESUME=0 and =1), talk-traced (the talk turn with a tracer provider that records the
 * module's spans and drops them, bench/lib/tracing-preload.js), talk-untraced (the talk turn with tracing off: every
 * call the module makes into @opentelemetry/api answered empty, bench/lib/tracing-off-preload.js) and talk-otel (the sample's own
 * OpenTelemetry SDK exporting OTLP to a sink in the bench process), talk-floor-otel (talk-floor with that same SDK
 * exporting, started by the sample's instrument.js: the SDK's cost where no module makes a span), talk-key and talk-oauth (the talk turn behind
 * the sample's API key, and behind OAuth with a JWT from bench/lib/oauth-issuer.js) (issue 41).
 * Beside the instructions, the writing transactions per request (transaction ids the server handed out).
 * Each thread is counted apart and the main thread's share printed too.
 *
 * V8's flags (V8_FLAGS, default `--single-threaded --no-memory-reducer --hash-seed=1 --random-seed=1`): the counted process runs
 * with V8's background tasks off, so the optimizing compiler, Sparkplug and the GC's marking and
 * scavenging run on the main thread, and without the memory reducer, whose timers start major GCs
 * when the allocation rate per second of wall time looks idle. Both made the count follow the wall
 * clock, and so the host's load: with V8's defaults talk read 1,096k at load 12 and 719k at load 6
 * (issue 41, round 3); single-threaded alone, news read 488-499k at load 1 and 1,382-1,428k at
 * load 9 (major GCs, bytecode flushed and compiled again); with both flags 492.6k and 492.3k at
 * load 12 (issue 41, round 4). V8_FLAGS='' restores V8's defaults; any other value replaces these.
 * Figures taken with other flags are not comparable: compare a kind with its floor under the same.
 * Beside the count in all, the optimizing compilers' share (Turbofan, Maglev, OSR: the inclusive
 * cost of their runtime entry points) is printed, and the count without it first: a JIT
 * compilation that falls inside the counted window is a one-off, not a per-request cost, and
 * whether it falls there moves a kind by up to ~20 %. Judge a kind by the first figure.
 * The major GC (issue 41, round 5): on Node 24 a mark-compact cycle (incremental marking, then the pause) landed in one
 * window of 500 requests and not in another: talk read 1,580k once and 514k the next time. Its timing follows V8's
 * heap limit, which V8 sets from GC and allocation speeds it measures in wall time. Its share (the mark-compact pause,
 * incremental marking's start and steps) is printed apart and left out of the first figure, as the optimizing
 * compilers' is. Scavenges (young generation) follow what requests allocate and keep alive: they stay in the figure,
 * their share printed too. On Node 24 a window of 500 talk requests holds 0 or 1 of them (215k a request when it
 * does): compare the figures less the scavenges too, or count more requests. FULL_GC=1 runs a full GC before the
 * window (and REWARM more requests); tried, it made the counts worse (BENCHMARKS.md round 5).
 * `--hash-seed=1 --random-seed=1`: V8 picks a random hash seed (string hashes: hash tables'
 * layout, and likely the megamorphic stub cache's collisions) and Math.random's seed per process,
 * and with them talk read either ~490-510k or ~710-720k (711.0k, 493.1k, 508.5k, 720.3k) at the
 * same load. With both seeds fixed, 494.4k and 489.2k. Run a kind twice before judging it.
 * CALLGRIND_KEEP=<folder> keeps the callgrind files (one subfolder per kind) for `callgrind_annotate`;
 * V8's generated code has no symbols for valgrind, so JavaScript shows as bare addresses there.
 * The writing transactions are server-wide: anything else writing to the same PostgreSQL server
 * meanwhile counts too.
 *
 * Env: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a fresh database
 * restap_instructions, or BENCH_DATABASE_NAME, is made in it for each kind), N (1000), C (4), WARM (5000). Loopback only.
 * WARM: at 1,500 the counted requests still carried V8's optimizing compiler (echo read 1,786k
 * instructions there and 763k after 4,000); C=1 also takes batching (which varies run to run) out of the count.
 */
const { execFileSync } = require('node:child_process');
const http = require('node:http');
const net = require('node:net');
const { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const db = require('./lib/db');
const { startAgent } = require('./lib/server');
const { REQUESTS } = require('./lib/doors');
const { startMcpFloor } = require('./lib/mcp-floor');
const { startA2aFloor } = require('./lib/a2a-floor');
const { startExpressFloor } = require('./lib/express-floor');
const { startTalkFloor } = require('./lib/talk-floor');
const { startAguiFloor } = require('./lib/agui-floor');
const { startOAuthIssuer } = require('./lib/oauth-issuer');

const N = Number(process.env.N) || 1000;
const C = Number(process.env.C) || 4;
const WARM = Number(process.env.WARM) || 5000;
// WINDOWS (2): counted windows of N requests each, one after the other in the same process; the kind's figure is the window
// with the fewest instructions without optimizing compilation or major GC, every window's printed beside it (issue 41,
// round 6). On Node 24 a window now and then carries a deoptimization and the slower code until it is optimized again:
// talk-untraced read 627.5k in one process and 685.7k in the next (optimizing compilers 61.8k against 115.5k in the window).
const WINDOWS = Number(process.env.WINDOWS) || 2;
// With FULL_GC=1, requests after the full GC and before the window: what the GC cleared (feedback and optimized code
// tied to maps it found dead) is deoptimized and optimized again here rather than in the window.
const REWARM = Number(process.env.REWARM ?? 2000);
// `--min-semi-space-size=1 --max-semi-space-size=1` (issue 41, round 5): the young generation pinned at 1 MB on Node 20
// and 24 alike, so a window of 500 requests holds tens of scavenges, not 0 or 1 (Node 24 sizes it from the heap limit):
// talk 655.5k and 620.5k, talk-floor 446.2k and 448.0k in two invocations on Node 24 (BENCHMARKS.md, round 5).
// `--initial-old-space-size=1024` (issue 41, round 6): the old generation's first limit at 1 GB, so no major GC runs in the
// process at all (warm-up and window promote tens of MB). A major GC in one window and not in another moved a kind by
// ~20 % even with its own share left out: its sweeping, and the bytecode it flushes and compiles again (talk 746.3k with
// one in its window, 621.2k without, same build). Its share was already out of the figure; now its aftermath is too.
const V8_FLAGS = (process.env.V8_FLAGS ?? '--single-threaded --no-memory-reducer --hash-seed=1 --random-seed=1 --min-semi-space-size=1 --max-semi-space-size=1 --initial-old-space-size=1024').split(/\s+/).filter(Boolean);
// V8's optimizing compilers' entry points from the running program (Turbofan and Maglev, OSR too), as callgrind_annotate
// names them: their inclusive cost is the optimizing compilation done in the counted window, printed apart.
// Node 20's V8 names them Runtime_CompileOptimized/Turbofan/Maglev, Node 24's Runtime_OptimizeTurbofanEager/MaglevEager.
const JIT_ENTRY = /^\s*([\d,]+) .*v8::internal::Runtime_(Compile(Optimized|Turbofan|Maglev)|Optimize(Turbofan|Maglev))/;
// The major GC's work on the main thread, as callgrind_annotate names it (Node 20's and 24's V8 alike): the mark-compact
// pause, and incremental marking's start and steps (on allocation and in its task), which run outside the pause.
// Disjoint entry points, so their inclusive costs add up. Sweeping after the pause is not split out.
const MAJOR_GC_ENTRY = /^\s*([\d,]+) .*v8::internal::(Heap::MarkCompact\(\)|IncrementalMarking::(Start|Step)\()(?!.*\[clone )/;
// The young generation's collections (Scavenger; MinorMS where it is on): proportional to what a request allocates, kept in the figure.
const SCAVENGE_ENTRY = /^\s*([\d,]+) .*v8::internal::Heap::(Scavenge|MinorMarkSweep)\(\)/;
// Not added by default (issue 41, round 5): `--no-flush-bytecode` (V8_FLAGS can add it). Each major GC ages bytecode and
// V8 drops what it deems old, to compile it again; with it, Node 20's talk still read 764.0k (282.0k of compilation in
// the window) against round 4's 485k, so it did not make the count steadier and would have moved Node 20's figures.
const ALWAYS = [];
// FULL_GC=1: a full GC (SIGWINCH, bench/lib/gc-on-signal.js, preloaded with --expose-gc) after the warm-up, then REWARM
// more requests before the window. Off by default: on Node 20 the forced GC sent V8 into deoptimizing and optimizing
// again for thousands of requests (talk 517.5k and 405k of compilation after 2,000 more, against 485k without it), and
// on Node 24 talk still had a major GC in one window of two (issue 41, round 5).
const FULL_GC = process.env.FULL_GC === '1';
const GC_PRELOAD = FULL_GC ? ['--expose-gc', '-r', path.join(__dirname, 'lib', 'gc-on-signal.js')] : [];
const SERVER = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const JSON_POST = { method: 'POST', headers: { 'content-type': 'application/json' } };
const AGUI_RUN = {
  path: '/ag-ui',
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: JSON.stringify({ threadId: '', runId: 'bench-r1', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [] }),
  verify: (body) => body.includes('"delta":"ok"') && body.includes('"RUN_FINISHED"'),
};
const SSE_TURN = {
  path: '/talk',
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: JSON.stringify({ message: 'hi' }),
  verify: (body) => body.includes('event: message.end') && body.includes('event: done'),
};
const SCENARIOS = {
  live: { path: '/health/live' },
  catalog: { path: '/.well-known/restap.json' },
  news: { path: '/news', ...JSON_POST, body: JSON.stringify({ type: 'note', message: 'hello' }) },
  talk: { path: '/talk', ...JSON_POST, body: JSON.stringify({ message: 'hi' }) },
  // The same turn with news in the feed: every new session's turn carries the newest 20 items (news.contextLimit).
  'talk-news': { path: '/talk', ...JSON_POST, body: JSON.stringify({ message: 'hi' }), seed: 20 },
  // A GET /news poll of the (small) global feed; the news scenario's posts, if run first, fill it.
  'news-get': { path: '/news?since=0&limit=10' },
  // GET /news polls of the same feed, each connection from its own since (issue 19, target 3:
  // no two alike). Seeds 10k items first; name it before news-get to compare the two on them.
  'news-get-since': { path: (k) => `/news?since=${k}&limit=10`, seed: 10_000 },
  // One MCP tools/call of text_echo (2026-07-28, stateless: one POST, no initialize), as the bench's doors row sends it.
  mcp: REQUESTS.mcpEcho,
  // POST /text/echo with the body the mcp scenario's call echoes: the HTTP baseline of the MCP ratio.
  echo: REQUESTS.httpEcho,
  // An MCP server/discover (2026-07-28 has no ping): the SDK's per-request cost with no tool behind it (a server with the whole surface is still built).
  'mcp-discover': {
    ...REQUESTS.mcpEcho,
    headers: Object.fromEntries(Object.entries({ ...REQUESTS.mcpEcho.headers, 'mcp-method': 'server/discover' }).filter(([name]) => name !== 'mcp-name')),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: JSON.parse(REQUESTS.mcpEcho.body).params._meta } }),
    verify: (body) => body.includes('"supportedVersions"') && !body.includes('"error"'),
  },
  // One A2A SendMessage (JSON-RPC, blocking, A2A-Version 1.0): a new task answered by the bench responder, as the doors row sends it.
  a2a: REQUESTS.a2aSend,
  // The same two requests answered by each SDK alone (the doors' floors), counted in the floor's process.
  'mcp-floor': { ...REQUESTS.mcpEcho, floor: 'mcp' },
  'a2a-floor': { ...REQUESTS.a2aSend, floor: 'a2a' },
  // What any JSON POST costs on the agent's HTTP server before anything answers it (the part the doors share with their baselines).
  'express-floor': { path: '/news', ...JSON_POST, body: JSON.stringify({ type: 'note', message: 'hello' }), floor: 'express' },
  // The talk and news scenarios on the bench's floors: a bare Nest route with the module's statements and batching.
  'talk-floor': { path: '/talk', ...JSON_POST, body: JSON.stringify({ message: 'hi' }), floor: 'talk' },
  'news-floor': { path: '/news', ...JSON_POST, body: JSON.stringify({ type: 'note', message: 'hello' }), floor: 'talk' },
  // talk-news's floor: the talk floor with the same 20 items seeded, so its news read returns them.
  'talk-news-floor': { path: '/talk', ...JSON_POST, body: JSON.stringify({ message: 'hi' }), floor: 'talk', seed: 20 },
  // One AG-UI run (RunAgentInput, a new thread, SSE) through the agent's AG-UI door, on by default; and the same run
  // answered by @ag-ui/core's schema and @ag-ui/encoder alone (bench/lib/agui-floor.js): the door's bound is that floor
  // plus a talk turn less express-floor, the HTTP work both share.
  agui: AGUI_RUN,
  'agui-floor': { ...AGUI_RUN, floor: 'agui' },
  // A /talk turn streamed as SSE with resumable streams off and on (talk.resume: the turn's frames numbered and stored).
  'talk-sse': { ...SSE_TURN, env: { RESTAP_TALK_RESUME: '0' } },
  'talk-resume': { ...SSE_TURN, env: { RESTAP_TALK_RESUME: '1' } },
  // The talk turn with tracing on: a tracer provider registered that records the module's spans and drops them
  // (bench/lib/tracing-preload.js, no instrumentation, no exporter); and the sample's own OpenTelemetry SDK exporting
  // (http, express and pg instrumentations, OTLP/protobuf to a sink in this process, metrics and logs off).
  'talk-traced': { ...REQUESTS.talk, nodeArgs: ['-r', path.join(__dirname, 'lib', 'tracing-preload.js')] },
  'talk-untraced': { ...REQUESTS.talk, nodeArgs: ['-r', path.join(__dirname, 'lib', 'tracing-off-preload.js')] },
  'talk-otel': { ...REQUESTS.talk, otlpSink: true, env: { OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' } },
  // The talk floor (a bare Nest route, no module) with the sample's same SDK exporting, started by the sample's own
  // instrument.js: what the SDK costs a request where the module makes no span at all, beside talk-floor.
  'talk-floor-otel': {
    path: '/talk', ...JSON_POST, body: JSON.stringify({ message: 'hi' }), floor: 'talk', otlpSink: true,
    nodeArgs: ['-r', path.join(__dirname, '..', 'dist', 'apps', 'sample-agent', 'apps', 'sample-agent', 'src', 'instrument.js')],
    env: { OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
  },
  // The talk turn behind the sample's API key (RESTAP_API_KEY, a bearer key the host's guard compares), and behind OAuth
  // (RESTAP_OAUTH_ISSUER: a JWT verified by the module against a JWKS served in this process): the OAuth row's pair.
  'talk-key': { ...REQUESTS.talk, headers: { ...REQUESTS.talk.headers, authorization: 'Bearer bench-key' }, env: { RESTAP_API_KEY: 'bench-key' } },
  'talk-oauth': { ...REQUESTS.talk, issuer: true, env: { RESTAP_OAUTH_AUDIENCE: 'http://bench.agent' } },
};

/** With `issuer`, the scenario behind a loopback authorization server, carrying a token it signed for the agent. */
async function withIssuer(scenario) {
  if (!scenario.issuer) return scenario;
  const issuer = await startOAuthIssuer();
  const token = await issuer.token(scenario.env.RESTAP_OAUTH_AUDIENCE);
  return { ...scenario, headers: { ...scenario.headers, authorization: `Bearer ${token}` }, env: { ...scenario.env, RESTAP_OAUTH_ISSUER: issuer.url } };
}

/** The server a scenario is counted in: the agent, or a door's floor (the MCP one with the agent's text_echo schemas). */
async function startServer(scenario, databaseUrl, { wrapper, nodeArgs, env }) {
  const own = { ...scenario.env, ...(scenario.otlpSink ? { OTEL_EXPORTER_OTLP_ENDPOINT: await otlpSink() } : {}) };
  if (!scenario.floor) {
    return startAgent({ port: await freePort(), wrapper, nodeArgs: [...nodeArgs, ...(scenario.nodeArgs ?? [])], env: { ...env, ...own, DATABASE_URL: databaseUrl, RESTAP_BENCH: '1', RESTAP_RATE_LIMIT: '0' }, startTimeoutMs: 600_000 });
  }
  if (scenario.floor === 'a2a') return startA2aFloor({ wrapper, nodeArgs, env });
  if (scenario.floor === 'agui') return startAguiFloor({ wrapper, nodeArgs, env });
  if (scenario.floor === 'express') return startExpressFloor('prebuilt', { wrapper, nodeArgs, env });
  // The agent, uncounted, first: its migrations make the floors' tables, its catalog has text_echo's schemas.
  const agent = await startAgent({ port: await freePort(), env: { DATABASE_URL: databaseUrl, RESTAP_BENCH: '1' }, startTimeoutMs: 300_000 });
  let echo;
  try {
    echo = (await (await fetch(`${agent.url}/.well-known/restap.json`)).json()).capabilities.find((c) => c.id === 'text.echo');
  } finally {
    await agent.stop();
  }
  if (scenario.floor === 'talk') return startTalkFloor(databaseUrl, { wrapper, nodeArgs: [...nodeArgs, ...(scenario.nodeArgs ?? [])], env: { ...env, ...own } });
  return startMcpFloor({ inputSchema: echo.input_schema, outputSchema: echo.output_schema }, { wrapper, nodeArgs, env });
}

/**
 * A loopback port nobody listens on, from the kernel's ephemeral range. A random one in 3700-3789 (before) could be another
 * bench's agent on a shared host: ours then failed to listen and the requests, counted or not, went to theirs.
 */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** An OTLP/HTTP endpoint on loopback that takes every export (200, empty body) and keeps nothing; its base URL. */
async function otlpSink() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': req.headers['content-type'] || 'application/x-protobuf' }).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${server.address().port}`;
}

async function drive(url, scenario, count) {
  let sent = 0;
  await Promise.all(Array.from({ length: C }, async (_, k) => {
    const where = typeof scenario.path === 'function' ? scenario.path(k) : scenario.path;
    while (sent++ < count) {
      const res = await fetch(url + where, { method: scenario.method ?? 'GET', headers: scenario.headers, body: scenario.body });
      const body = await res.text();
      if (res.status >= 300) throw new Error(`${where} answered ${res.status}: ${body.slice(0, 300)}`);
      if (scenario.verify && !scenario.verify(body)) throw new Error(`${where} answered ${body.slice(0, 300)}`);
    }
  }));
}

async function measure(name, databaseUrl) {
  if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}: one of ${Object.keys(SCENARIOS).join(', ')}`);
  const scenario = await withIssuer(SCENARIOS[name]);
  const keep = process.env.CALLGRIND_KEEP; // a folder: the callgrind files are kept there, one subfolder per kind, for callgrind_annotate
  const dir = keep ? mkdtempSync(path.join(keep, `${name}-`)) : mkdtempSync(path.join(os.tmpdir(), 'restap-callgrind-'));
  // vgdb (behind callgrind_control) names its pipes after USER and HOST: both sides must agree.
  const names = { USER: process.env.USER || 'bench', LOGNAME: process.env.LOGNAME || 'bench', HOST: '127.0.0.1' };
  const gcDone = path.join(dir, 'gc-done');
  const agent = await startServer(scenario, databaseUrl, {
    wrapper: ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${dir}/out`],
    nodeArgs: [...V8_FLAGS, ...ALWAYS, ...GC_PRELOAD],
    env: { ...names, RESTAP_BENCH_GC_DONE: gcDone },
  });
  const control = (...args) => execFileSync('callgrind_control', [...args, String(agent.pid)], { env: { ...process.env, ...names }, stdio: 'ignore' });
  let commits; // writing transactions during the counted requests
  try {
    if (scenario.seed) {
      // After the agent started: its migrations made the tables.
      const pool = new db.Pool({ connectionString: databaseUrl, max: 1 });
      try {
        await db.seedNews(pool, scenario.seed);
      } finally {
        await pool.end();
      }
    }
    await drive(agent.url, scenario, WARM);
    if (FULL_GC) {
      await fullGc(agent.pid, gcDone);
      await drive(agent.url, scenario, REWARM);
    }
    const before = await writingTransactionId(databaseUrl);
    for (let w = 0; w < WINDOWS; w++) {
      control('-i', 'on');
      await drive(agent.url, scenario, N);
      control('-i', 'off');
      control('-d'); // window w's counts: the files of part w + 1
    }
    commits = (await writingTransactionId(databaseUrl)) - before - 1; // less the reading call's own id
  } finally {
    await agent.stop();
  }
  const windows = new Map(); // part -> { total, main, jit, major, scavenges }
  for (const file of readdirSync(dir)) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const totals = /^totals:\s+(\d+)/m.exec(text);
    const part = /^part:\s+(\d+)/m.exec(text);
    if (!totals || !Number(totals[1]) || !part) continue;
    const window = windows.get(part[1]) ?? { total: 0, main: 0, jit: 0, major: 0, scavenges: 0 };
    windows.set(part[1], window);
    window.total += Number(totals[1]);
    if (/^thread: 1$/m.test(text)) window.main += Number(totals[1]); // JavaScript's thread; the rest is V8's and libuv's helper threads
    const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', path.join(dir, file)], { encoding: 'utf8', maxBuffer: 1 << 28 });
    for (const line of annotated.split('\n')) {
      const count = (re) => Number(re.exec(line)?.[1].replaceAll(',', '') ?? 0);
      window.jit += count(JIT_ENTRY); // the optimizing compilers' share, on whichever thread ran them
      window.major += count(MAJOR_GC_ENTRY); // the major GC's (mark-compact, incremental marking)
      window.scavenges += count(SCAVENGE_ENTRY); // the young generation's collections
    }
  }
  if (!keep) rmSync(dir, { recursive: true, force: true });
  if (!windows.size) throw new Error('callgrind recorded nothing (is callgrind_control able to reach the process?)');
  // The window with the fewest instructions once optimizing compilation and major GC are out: the others carried more of
  // a one-off (code deoptimized and run slower until optimized again), never less of the request's own work.
  const judged = (w) => w.total - w.jit - w.major;
  const all = [...windows.values()];
  const best = all.reduce((a, b) => (judged(b) < judged(a) ? b : a));
  const per = (n) => n / N;
  return { instructions: per(best.total), main: per(best.main), jit: per(best.jit), major: per(best.major), scavenges: per(best.scavenges), commits: commits / (N * WINDOWS), windows: all.map((w) => per(judged(w))) };
}

/** Runs a full GC in the counted process (SIGWINCH, bench/lib/gc-on-signal.js) and waits until it is done. */
async function fullGc(pid, doneFile) {
  rmSync(doneFile, { force: true });
  process.kill(pid, 'SIGWINCH');
  const deadline = Date.now() + 120_000;
  while (!existsSync(doneFile)) {
    if (Date.now() > deadline) throw new Error('the counted process did not report its full GC (is bench/lib/gc-on-signal.js preloaded?)');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Transaction ids handed out so far on the server: one per transaction that writes (reads take
 * none); this call takes one. Server-wide: run it while nothing else writes (the bench lock).
 */
async function writingTransactionId(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_current_xact_id()::text::bigint AS n');
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

async function main() {
  const names = process.argv.slice(2);
  if (!names.length) throw new Error(`name scenarios: ${Object.keys(SCENARIOS).join(', ')}`);
  for (const name of names) {
    // Each kind on a database of its own: news's posts left in the feed made a later talk carry 20 items (a talk-news).
    const database = await db.freshDatabase(SERVER, process.env.BENCH_DATABASE_NAME || 'restap_instructions');
    const { instructions, main: mainThread, jit, major, scavenges, commits, windows } = await measure(name, database.url);
    const k = (n) => `${(n / 1000).toFixed(1)} k`;
    console.log(`${name}: ${k(instructions - jit - major)} instructions/request without optimizing compilation or major GC (in all ${k(instructions)}, main thread ${k(mainThread)}, optimizing compilers ${k(jit)}, major GC ${k(major)}, scavenges ${k(scavenges)}), ${commits.toFixed(2)} writing transactions/request (${N} requests at ${C} connections, the least of ${windows.length} windows: ${windows.map(k).join(', ')}; after ${WARM} warm-up${FULL_GC ? `, a full GC and ${REWARM} more` : ''}, V8 flags '${[...V8_FLAGS, ...ALWAYS].join(' ')}', ${process.version})`);
  }
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
