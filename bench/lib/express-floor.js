'use strict';
/**
 * The Express floor: a bare Express 5 app (the HTTP layer under every Nest Express backend) with
 * `express.json()` and one POST route that writes a fixed JSON answer — no Nest, no module, no
 * database. Run as its own process like the agent, so its figure is the most any handler behind
 * Express can serve on this machine under the same load. Run directly, it is that server.
 */
const { fork } = require('node:child_process');
const { cpuMsOf } = require('./server');

const ANSWER = '{"status":"received","news_id":"news_1","message":"Message stored successfully"}';

if (require.main === module) {
  const express = require('express');
  const app = express();
  app.use(express.json());
  app.post('/news', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(ANSWER) });
    res.end(ANSWER);
  });
  const server = app.listen(0, '127.0.0.1', () => process.send(server.address().port));
  process.on('message', () => server.close(() => process.exit(0)));
}

/** Starts the floor server as a child process; returns its URL, its CPU so far (ms) and stop(). */
async function startExpressFloor() {
  const child = fork(__filename, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`express floor exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    cpuMs: () => cpuMsOf(child.pid),
    stop: () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => { clearTimeout(timer); resolve(); });
        child.send('stop');
      }),
  };
}

module.exports = { startExpressFloor };
