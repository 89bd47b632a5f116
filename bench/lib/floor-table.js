'use strict';
/**
 * Issue 41's table in `npm run bench`: each path beside its own floor, counted in instructions per
 * request by callgrind (bench/instructions.js, in a child process, one kind at a time), judged
 * against the issue's targets. A floor is the same work with nothing of ours in between; where a
 * door's floor is its SDK alone, the door must also run what the SDK does not (a turn, or the
 * capability's Nest pipeline), less the HTTP work both already count (express-floor).
 *
 * Env: BENCH_INSTRUCTIONS=0 skips the step; BENCH_INSTR_N (300 a window, two windows: bench/instructions.js WINDOWS), BENCH_INSTR_WARM (4000) per kind, C=1.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

/** `[kind, floor terms, target ratio, what the floor is]`; a term `-x` is subtracted, others added. */
const PATHS = [
  ['/talk JSON turn', 'talk', ['talk-floor'], 1.10, 'a bare Nest route with the module\'s statements and batching'],
  ['/talk with 20 news items', 'talk-news', ['talk-news-floor'], 1.10, 'the same floor, its news read returning the 20 items'],
  ['POST /news', 'news', ['news-floor'], 1.15, 'a bare Nest route with the module\'s append statement and batching'],
  ['MCP tools/call (text_echo)', 'mcp', ['mcp-floor', 'echo', '-express-floor'], 1.20, 'the SDK alone + the capability\'s Nest pipeline (POST /text/echo less the HTTP work both share)'],
  ['A2A SendMessage', 'a2a', ['a2a-floor', 'talk', '-express-floor'], 1.25, 'the SDK alone + a talk turn − the HTTP work both share'],
  ['AG-UI run (SSE, new thread)', 'agui', ['agui-floor', 'talk', '-express-floor'], 1.25, '@ag-ui/encoder alone + a talk turn − the HTTP work both share'],
  ['OAuth on (JWT verified)', 'talk-oauth', ['talk-key'], 1.08, 'the same turn behind the API key'],
  ['tracing, API only (no SDK registered: the talk row)', 'talk', ['talk-untraced'], 1.02, 'the turn with tracing off (the module\'s calls into @opentelemetry/api answered empty)'],
  ['tracing, SDK exporting (OTLP, the sample\'s http/express/pg instrumentations)', 'talk-otel', ['talk-untraced'], 1.15, 'the turn with tracing off'],
  ['tracing, a provider recording the module\'s spans and dropping them (no instrumentation, no exporter)', 'talk-traced', ['talk-untraced'], 1.15, 'the turn with tracing off; the module\'s own share of the SDK row'],
  ['resumable /talk SSE', 'talk-resume', ['talk-sse'], 1.10, 'the same SSE turn with resume off'],
];

/**
 * Runs bench/instructions.js for `kinds`; resolves to { kind: { judged, total, main } } (k instructions per request;
 * `judged`: without the optimizing compilers' one-off work and the major GC's, the figure issue 41 judges, see BENCHMARKS.md round 5).
 */
function countKinds(kinds, { databaseName }) {
  const env = {
    ...process.env,
    C: '1',
    N: process.env.BENCH_INSTR_N || '300',
    WARM: process.env.BENCH_INSTR_WARM || '4000',
    BENCH_DATABASE_NAME: databaseName,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'instructions.js'), ...kinds], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const counts = {};
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      let nl;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        console.log(`  ${line}`);
        // bench/instructions.js: `<kind>: X k instructions/request without optimizing compilation or major GC (in all Y k, main thread Z k, …`
        const m = /^([\w-]+): ([\d.]+) k instructions\/request without optimizing compilation or major GC \(in all ([\d.]+) k, main thread ([\d.]+) k/.exec(line);
        if (m) counts[m[1]] = { judged: Number(m[2]), total: Number(m[3]), main: Number(m[4]) };
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(counts) : reject(new Error(`bench/instructions.js exited ${code}`))));
  });
}

const fmtK = (n) => `${n.toFixed(1)}k`;

/** Counts every kind the table needs, then records one row per path: `record(scenario, figure, baseline, ratio, target, pass, note)`. */
async function floorTable({ record, databaseName = 'restap_bench_instr' }) {
  const kinds = [...new Set(PATHS.flatMap(([, kind, terms]) => [kind, ...terms.map((t) => t.replace(/^-/, ''))]))];
  const counts = await countKinds(kinds, { databaseName });
  for (const [name, kind, terms, target, what] of PATHS) {
    const missing = [kind, ...terms.map((t) => t.replace(/^-/, ''))].filter((k) => !counts[k]);
    if (missing.length) {
      record(`${name}: instructions vs its floor`, 'not counted', '', '', `<= ${target.toFixed(2)}x`, false, `kinds without a count: ${missing.join(', ')}`);
      continue;
    }
    const of = (which) => terms.reduce((sum, t) => (t.startsWith('-') ? sum - counts[t.slice(1)][which] : sum + counts[t][which]), 0);
    const floor = of('judged');
    const ratio = counts[kind].judged / floor;
    record(
      `${name}: instructions vs its floor`,
      `${kind} ${fmtK(counts[kind].judged)}`,
      `${terms.join(' + ').replace(/\+ -/g, '− ')} = ${fmtK(floor)}`,
      `${ratio.toFixed(2)}x`,
      `<= ${target.toFixed(2)}x`,
      ratio <= target,
      `${what}; without optimizing compilation or major GC; in all ${fmtK(counts[kind].total)} vs ${fmtK(of('total'))}; per request, C=1, callgrind, V8 single-threaded`,
    );
  }
}

module.exports = { floorTable, PATHS };
