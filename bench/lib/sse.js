'use strict';
// Raw node:http SSE clients: first-frame latency, and many idle streams held open.
const httpMod = require('node:http');

const agent = new httpMod.Agent({ keepAlive: true, maxSockets: Infinity });

/** POSTs /talk asking for SSE; resolves with ms until the first body byte, and reads the rest. */
function firstFrameMs(url, message = 'hi', { keepAlive = true } = {}) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ message });
    const started = process.hrtime.bigint();
    const req = httpMod.request(`${url}/talk`, {
      method: 'POST',
      agent: keepAlive ? agent : undefined,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let first;
      res.on('data', () => { first ??= Number(process.hrtime.bigint() - started) / 1e6; });
      res.on('end', () => (res.statusCode === 200 && first !== undefined ? resolve(first) : reject(new Error(`status ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Opens `count` SSE streams whose handler stays idle (`message` makes the bench handler wait),
 * counting heartbeat comments per stream. `close()` ends them all.
 */
async function openIdleStreams(url, count, message) {
  const streams = [];
  const body = JSON.stringify({ message });
  const idleAgent = new httpMod.Agent({ keepAlive: false, maxSockets: Infinity });
  // Opened 200 at a time: the scenario is 2,000 streams held open, not a 2,000-connection burst
  // (a burst queues turns behind the pool's bounded wait and some get 503 + Retry-After).
  const open = () => new Promise((resolve, reject) => {
    const state = { heartbeats: 0, started: false, errors: 0, req: undefined };
    state.req = httpMod.request(`${url}/talk`, {
      method: 'POST', agent: idleAgent,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      if (res.statusCode !== 200) { state.errors++; state.status = res.statusCode; res.resume(); resolve(); return; }
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        if (chunk.includes('message.start')) { state.started = true; resolve(); }
        state.heartbeats += (chunk.match(/^:/gm) || []).length;
      });
      res.on('error', () => {});
    });
    state.req.on('error', (e) => { state.errors++; resolve(); void e; });
    state.req.end(body);
    streams.push(state);
    void reject;
  });
  for (let opened = 0; opened < count; opened += 200) {
    await Promise.all(Array.from({ length: Math.min(200, count - opened) }, open));
  }
  return {
    streams,
    close: () => streams.forEach((s) => s.req.destroy()),
  };
}

module.exports = { firstFrameMs, openIdleStreams };
