'use strict';
// Held GET /news?wait= polls on one replica, woken by posts through another (issue 18).
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const { percentiles } = require('./load');

/** A session id the agent accepts (base64url of 18 random bytes). */
const newSession = () => randomBytes(18).toString('base64url');

/** GET or POST on loopback with a keep-alive agent; resolves { status, json } or rejects. */
function request(agent, url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body ? { ...headers, 'content-type': 'application/json' } : headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode, json: JSON.parse(text) });
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * `polls` long-pollers on `reader` (each its own session, so each post wakes exactly one poll and
 * the 1,000 others stay held), `rate` posts a second for `seconds` through `writer` (open loop:
 * one every 1000/rate ms, whatever the answers), each to a random poller's session. Every poller
 * loops `since` = the answer's timestamp with `wait=30`, as a client does.
 *
 * Delivery latency: from the POST's acknowledgement (the item committed before it) to the held
 * poll's answer, as the bench process sees both; also from the POST's send. CPU per delivered item
 * is the reader's CPU over the window divided by the items its polls answered with. Also checks
 * that every acknowledged item reached its session's poller exactly once.
 */
async function longPollScenario({ reader, writer, polls = 1000, rate = 200, seconds = 10 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const sessions = Array.from({ length: polls }, newSession);
  const sentAt = new Map();
  const ackedAt = new Map();
  const delivered = new Map(); // news_id -> [delivered at, session index]
  const received = sessions.map(() => []);
  let stop = false;
  let errors = 0;
  let refused = 0;

  const pollers = sessions.map(async (session, k) => {
    let since = 0;
    const headers = { 'restap-session-id': session };
    while (!stop) {
      try {
        const page = await request(agent, `${reader.url}/news?since=${since}&wait=30&limit=1000`, { headers });
        if (page.status !== 200) {
          refused++;
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        const at = performance.now();
        for (const item of page.json.items) {
          delivered.set(item.news_id, [at, k]);
          received[k].push(item.news_id);
        }
        since = page.json.timestamp;
      } catch {
        if (!stop) errors++;
      }
    }
  });
  await new Promise((r) => setTimeout(r, 3_000)); // every poll has read once and is held
  const rssHeld = reader.rssMb();

  const readerCpu = reader.cpuMs();
  const writerCpu = writer.cpuMs();
  const posts = [];
  const interval = 1000 / rate;
  const started = performance.now();
  for (let n = 0; n < rate * seconds; n++) {
    const due = started + n * interval;
    const now = performance.now();
    if (due > now) await new Promise((r) => setTimeout(r, due - now));
    const k = Math.floor(Math.random() * polls);
    const t = performance.now();
    posts.push(
      request(agent, `${writer.url}/news`, { method: 'POST', body: JSON.stringify({ type: 'bench.wake', message: `#${n}`, session_id: sessions[k] }) })
        .then((ack) => {
          if (ack.status !== 200) return void errors++;
          sentAt.set(ack.json.news_id, t);
          ackedAt.set(ack.json.news_id, performance.now());
        })
        .catch(() => errors++),
    );
  }
  await Promise.all(posts);
  const deadline = performance.now() + 10_000;
  while ([...ackedAt.keys()].some((id) => !delivered.has(id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const cpu = { reader: reader.cpuMs() - readerCpu, writer: writer.cpuMs() - writerCpu };
  const peakRss = reader.peakRssMb();
  stop = true;
  agent.destroy(); // ends the held polls still open
  await Promise.allSettled(pollers);

  const fromAck = [];
  const fromSend = [];
  for (const [id, acked] of ackedAt) {
    const hit = delivered.get(id);
    if (!hit) continue;
    fromAck.push(Math.max(0, hit[0] - acked));
    fromSend.push(hit[0] - sentAt.get(id));
  }
  const all = received.flat();
  return {
    posted: ackedAt.size,
    delivered: fromAck.length,
    missing: ackedAt.size - fromAck.length,
    duplicates: all.length - new Set(all).size,
    ack: percentiles(fromAck),
    send: percentiles(fromSend),
    cpuPerItem: cpu.reader / Math.max(1, fromAck.length),
    writerCpuPerPost: cpu.writer / Math.max(1, ackedAt.size),
    rssHeld,
    peakRss,
    errors,
    refused,
  };
}

module.exports = { longPollScenario };
