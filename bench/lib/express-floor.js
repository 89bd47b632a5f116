'use strict';
/**
 * The Express floor: a bare Express 5 app (the HTTP layer under every Nest Express backend) with
 * `express.json()` and one POST route that writes a fixed JSON answer — no Nest, no module, no
 * database. Run as its own process like the agent, so its figure is the most any handler behind
 * Express can serve on this machine under the same load. Run directly, it is that server.
 *
 * Two kinds: 'stock' (`app.listen`, as Express ships) and 'prebuilt', whose HTTP server builds
 * requests and responses on the app's prototypes as RestapExpressAdapter's does (the sample runs
 * on it, with the same `expressMessageClasses`, no Nest), so Express's per-request prototype swap
 * changes nothing. 'prebuilt' needs the build.
 */
const http = require('node:http');
const path = require('node:path');
const { startChildServer } = require('./child-server');

const ANSWER = '{"status":"received","news_id":"news_1","message":"Message stored successfully"}';

/** expressMessageClasses, as built (no Nest in it). */
const CLASSES = path.join(__dirname, '..', '..', 'dist', 'apps', 'sample-agent', 'libs', 'restap', 'src', 'doors', 'kit', 'http', 'express-message-classes.js');

if (require.main === module) {
  const express = require('express');
  const app = express();
  const kind = process.argv[2];
  app.use(express.json());
  app.post('/news', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(ANSWER) });
    res.end(ANSWER);
  });
  const server = kind === 'prebuilt' ? http.createServer(require(CLASSES).expressMessageClasses(app), app) : http.createServer(app);
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
  process.on('message', () => server.close(() => process.exit(0)));
}

/** Starts the floor server ('stock' or 'prebuilt') as a child process (options as startChildServer's); returns its URL, its CPU so far (ms) and stop(). */
async function startExpressFloor(kind = 'stock', options) {
  return startChildServer(__filename, [kind], options);
}

module.exports = { startExpressFloor, CLASSES };
