'use strict';
/**
 * `npm run soak` (issue 6): a bounded soak of the sample agent on loopback against PostgreSQL —
 * SOAK_STREAMS concurrent SSE streams on /talk plus SOAK_NEWS_RATE news writes per second for
 * SOAK_SECONDS, then a lossless read-back of every acknowledged item. Reports errors (goal: zero)
 * and the agent's peak RSS. Not part of `npm test`; stops by itself (hard deadline).
 *
 * Streams: each of SOAK_STREAMS workers keeps one stream open at all times. Four in five are held
 * open (the bench handler's `bench:idle`, heartbeats every second) for 2–8 s and then closed by the
 * client; one in five is a whole turn (message.start → delta → message.end → done) checked frame by
 * frame. Every stream and turn is stored.
 *
 * Env: SOAK_DATABASE_URL (server; default postgres://postgres@127.0.0.1:5432/postgres, a fresh
 * database restap_soak is made on it), SOAK_SECONDS (60), SOAK_STREAMS (500), SOAK_NEWS_RATE (200),
 * SOAK_SKIP_BUILD=1 (use the existing dist/).
 */
const { execSync } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const db = require('./lib/db');
const { startAgent } = require('./lib/server');
const { percentiles } = require('./lib/load');

const SECONDS = Number(process.env.SOAK_SECONDS) || 60;
const STREAMS = Number(process.env.SOAK_STREAMS) || 500;
const NEWS_RATE = Number(process.env.SOAK_NEWS_RATE) || 200;
const SERVER = process.env.SOAK_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const HARD_DEADLINE_MS = (SECONDS + 120) * 1000;

const errors = {};
const fail = (kind, detail) => {
  errors[kind] = (errors[kind] || 0) + 1;
  if (errors[kind] <= 3) console.error(`  error ${kind}: ${detail}`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const counts = { held: 0, whole: 0, heartbeats: 0, newsAcked: 0, newsLate: 0, newsRetried: 0 };
const streamAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const newsAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One /talk SSE stream: resolves with its outcome; `holdMs` closes it from the client side. */
function stream(base, message, holdMs) {
  return new Promise((resolve) => {
    const body = JSON.stringify({ message });
    const req = http.request(`${base}/talk`, {
      method: 'POST', agent: streamAgent,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      if (res.statusCode !== 200) { res.resume(); return resolve({ ok: false, why: `status ${res.statusCode}` }); }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      if (holdMs) setTimeout(() => { req.destroy(); }, holdMs);
      const done = () => {
        const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
        if (events.includes('error')) return resolve({ ok: false, why: `error event: ${text.slice(text.indexOf('event: error'), text.indexOf('event: error') + 160)}` });
        if (events[0] !== 'message.start') return resolve({ ok: false, why: `no message.start (${events.join(',')})` });
        if (!holdMs && events.slice(-2).join() !== 'message.end,done') return resolve({ ok: false, why: `ended with ${events.slice(-2)}` });
        resolve({ ok: true, heartbeats: (text.match(/^: heartbeat/gm) || []).length });
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', () => undefined);
    });
    req.on('error', (e) => { if (!holdMs || !req.destroyed) resolve({ ok: false, why: e.message }); });
    req.end(body);
  });
}

/**
 * POST /news with an Idempotency-Key, retried once when the connection failed before any answer: a
 * keep-alive socket the server closed as idle (after its 5 s keepAliveTimeout) just as the request
 * went out is a client-side race, and the key makes the retry safe — it can never store twice.
 */
async function postNews(base, item, key) {
  const first = await postNewsOnce(base, item, key);
  if (first.status !== 0) return first;
  counts.newsRetried++;
  return postNewsOnce(base, item, key);
}

function postNewsOnce(base, item, key) {
  return new Promise((resolve) => {
    const body = JSON.stringify(item);
    const started = process.hrtime.bigint();
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'idempotency-key': key };
    const req = http.request(`${base}/news`, { method: 'POST', agent: newsAgent, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, text: e.message, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    req.end(body);
  });
}

async function readAllNews(base) {
  const items = [];
  for (let since = 0; ;) {
    const res = await fetch(`${base}/news?since=${since}&limit=1000`);
    const page = await res.json();
    items.push(...page.items);
    since = page.items.length ? page.items.at(-1).timestamp : since;
    if (!page.has_more) return items;
  }
}

async function main() {
  const hard = setTimeout(() => { console.error(`soak: hard deadline of ${HARD_DEADLINE_MS} ms reached`); process.exit(2); }, HARD_DEADLINE_MS);
  hard.unref();
  if (!process.env.SOAK_SKIP_BUILD) execSync('npm run build', { stdio: 'inherit', cwd: path.join(__dirname, '..') });
  const database = await db.freshDatabase(SERVER, 'restap_soak');
  const agent = await startAgent({
    port: 3990 + Math.floor(Math.random() * 9),
    env: {
      DATABASE_URL: database.url, DATABASE_POOL_SIZE: '20', RESTAP_BENCH: '1', RESTAP_HEARTBEAT_MS: '1000', RESTAP_RATE_LIMIT: '0',
      RESTAP_MAX_STREAMS: String(STREAMS * 2), RESTAP_MAX_STREAMS_PER_CLIENT: String(STREAMS * 2),
    },
  });
  console.log(`soak: ${STREAMS} concurrent SSE streams + ${NEWS_RATE} news writes/s for ${SECONDS} s against ${agent.url} (PostgreSQL ${database.version})`);
  const rssStart = agent.rssMb();
  const end = Date.now() + SECONDS * 1000;
  const acked = new Set();
  const newsLatency = [];
  const rssSamples = [];

  const workers = Array.from({ length: STREAMS }, async (_, w) => {
    await sleep(Math.random() * 2000); // ramp up over 2 s
    for (let i = 0; Date.now() < end; i++) {
      const whole = (w + i) % 5 === 0;
      const result = await stream(agent.url, whole ? 'hi' : 'bench:idle', whole ? 0 : Math.min(2000 + Math.random() * 6000, Math.max(500, end - Date.now())));
      if (!result.ok) { fail('stream', result.why); await sleep(200); continue; }
      counts[whole ? 'whole' : 'held']++;
      counts.heartbeats += result.heartbeats;
    }
  });

  let inFlight = 0;
  const writer = (async () => {
    const interval = 1000 / NEWS_RATE;
    const pending = [];
    for (let n = 0, next = Date.now(); Date.now() < end; n++) {
      next += interval;
      if (inFlight >= 400) counts.newsLate++;
      else {
        inFlight++;
        pending.push(postNews(agent.url, { type: 'soak', message: `n${n}` }, `soak-${n}`).then((r) => {
          inFlight--;
          newsLatency.push(r.ms);
          if (r.status !== 200) return fail('news', `${r.status} ${r.text.slice(0, 120)}`);
          counts.newsAcked++;
          acked.add(JSON.parse(r.text).news_id);
        }));
      }
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(pending);
  })();

  const sampler = setInterval(() => rssSamples.push(agent.rssMb()), 1000);
  await Promise.all([...workers, writer]);
  clearInterval(sampler);
  await sleep(500);
  const stored = new Set((await readAllNews(agent.url)).map((item) => item.news_id));
  const lost = [...acked].filter((id) => !stored.has(id)).length;
  if (lost) fail('news lost', `${lost} acknowledged items not read back`);
  const peak = agent.peakRssMb();
  const rssEnd = agent.rssMb();
  await agent.stop();
  const news = percentiles(newsLatency);
  const totalErrors = Object.values(errors).reduce((a, b) => a + b, 0);
  console.log([
    `streams held open (idle, heartbeats): ${counts.held}, whole turns streamed: ${counts.whole}, heartbeats received: ${counts.heartbeats}`,
    `news acknowledged: ${counts.newsAcked} (${(counts.newsAcked / SECONDS).toFixed(1)}/s), write latency p50 ${news.p50?.toFixed(1)} ms p99 ${news.p99?.toFixed(1)} ms, skipped for backlog: ${counts.newsLate}, retried after a closed keep-alive socket: ${counts.newsRetried}, read back losslessly: ${lost === 0 ? 'yes' : `NO (${lost} lost)`}`,
    `agent RSS: start ${rssStart.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, end ${rssEnd.toFixed(0)} MB (max sampled ${Math.max(...rssSamples).toFixed(0)} MB)`,
    `errors: ${totalErrors}${totalErrors ? ` ${JSON.stringify(errors)}` : ''}`,
  ].join('\n'));
  process.exit(totalErrors ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
