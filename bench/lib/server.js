'use strict';
// Starts the built sample agent as a child process on loopback and stops it; reads its peak RSS.
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const MAIN = path.join(__dirname, '..', '..', 'dist', 'apps', 'sample-agent', 'apps', 'sample-agent', 'src', 'main.js');

/**
 * Starts the agent and waits until it serves its catalog. `wrapper` runs it under another
 * program (e.g. valgrind, which keeps the pid); `startTimeoutMs` bounds the wait.
 */
async function startAgent({ port, env = {}, nodeArgs = [], wrapper = [], startTimeoutMs = 60_000 }) {
  const [command, ...args] = [...wrapper, process.execPath, ...nodeArgs, MAIN];
  const child = spawn(command, args, {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`agent exited early:\n${output}`);
    try {
      const res = await fetch(`${url}/.well-known/restap.json`);
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`agent did not start:\n${output}`); }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid,
    output: () => output,
    /** Peak resident set size of the agent process so far, MB (VmHWM). */
    peakRssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024;
    },
    /** CPU time (user + system) the agent process has used so far, ms. */
    cpuMs: () => cpuMsOf(child.pid),
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        const t = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 10_000);
        child.once('exit', () => { clearTimeout(t); resolve(); });
      });
    },
  };
}

/** CPU time (user + system) process `pid` has used so far, ms. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in 1/100 s ticks
}

module.exports = { startAgent, cpuMsOf, MAIN };
