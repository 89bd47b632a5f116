'use strict';
// Thin wrappers over autocannon and over a fixed-concurrency loop for non-HTTP baselines.
const autocannon = require('autocannon');

/**
 * Runs autocannon and returns {rps, p50, p99, errors, non2xx, mismatches}. Bounded by `seconds`.
 * `pathOf(k)`, if given, is the path connection k (0-based) requests, instead of the URL's.
 * `verifyBody(text)`, if given, must hold for every answer's body; those it rejects are `mismatches`.
 */
async function http({ url, method = 'GET', headers = {}, body, connections = 16, seconds = 5, pipelining = 1, pathOf, verifyBody }) {
  let next = 0;
  const setupClient = pathOf ? (client) => client.setRequests([{ method, headers, body, path: pathOf(next++) }]) : undefined;
  const result = await autocannon({ url, method, headers, body, connections, duration: seconds, pipelining, ...(setupClient ? { setupClient } : {}), ...(verifyBody ? { verifyBody } : {}) });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches ?? 0,
    total: result.requests.total,
  };
}

/** Runs `op()` on `concurrency` workers for `seconds`; returns ops/s and latency percentiles (ms). */
async function loop({ op, concurrency = 16, seconds = 5 }) {
  const latencies = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, async (_, worker) => {
    for (let i = 0; Date.now() < end; i++) {
      const t = process.hrtime.bigint();
      try { await op(worker, i); } catch { errors++; }
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuPerOp = (used.user + used.system) / 1000 / Math.max(1, latencies.length);
  return { rps: latencies.length / elapsed, ...percentiles(latencies), errors, total: latencies.length, cpuPerOp };
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);
  return { p50: at(0.5), p99: at(0.99) };
}

/**
 * `rounds` alternating (baseline, scenario) pairs, each the two results; keeps the pair with the
 * median `ratioOf(run, base)` and lists every pair's ratio: on a shared 2-core VM throughput drifts
 * by 2x within minutes, and a slow spell then hits one side of one pair, not the figure.
 */
async function paired(rounds, baseline, scenario, ratioOf) {
  const pairs = [];
  for (let round = 0; round < rounds; round++) {
    const base = await baseline();
    const run = await scenario();
    pairs.push({ base, run, ratio: ratioOf(run, base) });
  }
  const sorted = [...pairs].sort((a, b) => a.ratio - b.ratio);
  return { ...sorted[Math.floor(sorted.length / 2)], ratios: pairs.map((p) => p.ratio.toFixed(2)).join(', ') };
}

module.exports = { http, loop, paired, percentiles };
