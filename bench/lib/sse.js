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
 * noting when each heartbeat comment arrives. `close()` ends them all. Opened `batch` at a time:
 * the scenario is many streams held open, not a connection burst (a burst queues turns behind the
 * pool's bounded wait and some get 503 + Retry-After).
 */
async function openIdleStreams(url, count, message, { batch = 200 } = {}) {
  const streams = [];
  const body = JSON.stringify({ message });
  const idleAgent = new httpMod.Agent({ keepAlive: false, maxSockets: Infinity });
  const open = () => new Promise((resolve) => {
    const state = { beats: [], started: false, errors: 0, req: undefined };
    state.req = httpMod.request(`${url}/talk`, {
      method: 'POST', agent: idleAgent,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      if (res.statusCode !== 200) { state.errors++; state.status = res.statusCode; res.resume(); resolve(); return; }
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        if (chunk.includes('message.start')) { state.started = true; resolve(); }
        const beats = (chunk.match(/^:/gm) || []).length;
        const at = performance.now();
        for (let i = 0; i < beats; i++) state.beats.push(at);
      });
      res.on('error', () => {});
    });
    state.req.on('error', () => { state.errors++; resolve(); });
    state.req.end(body);
    streams.push(state);
  });
  for (let opened = 0; opened < count; opened += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - opened) }, open));
  }
  return {
    streams,
    /** Per stream, over [from, to] (performance.now() ms): heartbeats seen and the longest gap (window edges count). */
    heartbeats(from, to) {
      return streams.map((s) => {
        const inside = s.beats.filter((t) => t >= from && t <= to);
        let gap = 0;
        let last = from;
        for (const t of inside) { gap = Math.max(gap, t - last); last = t; }
        return { started: s.started, count: inside.length, maxGap: Math.max(gap, to - last) };
      });
    },
    close: () => streams.forEach((s) => s.req.destroy()),
  };
}

/**
 * Holds `count` GET /news?wait= polls, each on its own new session (nothing to read, so each
 * really waits). A poll answered at its wait timeout must be 200 with no items; it is then asked
 * again, as a client does. `close()` ends them all.
 */
async function openHeldPolls(url, count, { waitSeconds = 30, batch = 200 } = {}) {
  const { randomBytes } = require('node:crypto');
  const pollAgent = new httpMod.Agent({ keepAlive: false, maxSockets: Infinity });
  const polls = [];
  let closing = false;
  const ask = (state, onSent) => {
    state.held = true;
    state.req = httpMod.request(`${url}/news?since=0&wait=${waitSeconds}`, { agent: pollAgent, headers: { 'restap-session-id': state.session } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        state.held = false;
        if (closing) return;
        let ok = false;
        try { const page = JSON.parse(text); ok = res.statusCode === 200 && Array.isArray(page.items) && page.items.length === 0; } catch { ok = false; }
        if (ok) { state.timeouts++; ask(state); } else { state.errors++; state.status = res.statusCode; }
      });
      res.on('error', () => {});
    });
    state.req.on('error', () => { state.held = false; if (!closing) state.errors++; });
    state.req.end();
    if (onSent) state.req.on('socket', (socket) => socket.once('connect', onSent));
  };
  const open = () => new Promise((resolve) => {
    const state = { session: randomBytes(18).toString('base64url'), held: false, timeouts: 0, errors: 0, req: undefined };
    polls.push(state);
    ask(state, resolve);
  });
  for (let opened = 0; opened < count; opened += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - opened) }, open));
    await new Promise((r) => setTimeout(r, 50)); // each poll's first read runs before the next batch
  }
  return {
    polls,
    close: () => { closing = true; polls.forEach((p) => p.req.destroy()); },
  };
}

module.exports = { firstFrameMs, openIdleStreams, openHeldPolls };
