'use strict';
/**
 * The AG-UI floor: the official packages alone, no Nest, no module, no database, no turn. On
 * Express with `express.json()`, on the HTTP server the agent runs on (RestapExpressAdapter's
 * prebuilt prototypes, see express-floor.js), `POST /ag-ui` validates the body with `@ag-ui/core`'s
 * `RunAgentInputSchema` and streams the events the agent's door streams for the bench responder's
 * one-chunk reply — RUN_STARTED, TEXT_MESSAGE_START, TEXT_MESSAGE_CONTENT "ok", TEXT_MESSAGE_END,
 * RUN_FINISHED — each encoded by `@ag-ui/encoder`'s EventEncoder as the client's Accept asks. Run
 * as its own process like the agent: with a turn added (less the HTTP work both share), its
 * instructions are the least an AG-UI door on these packages can cost (issue 41's AG-UI row).
 */
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const { startChildServer } = require('./child-server');
const { CLASSES } = require('./express-floor');

if (require.main === module) {
  const express = require('express');
  const { EventType, PROTOCOL_VERSION } = require('@ag-ui/core');
  const { RunAgentInputSchema } = require('@ag-ui/core/schemas');
  const { EventEncoder } = require('@ag-ui/encoder');
  const app = express();
  app.use(express.json());
  app.post('/ag-ui', (req, res) => {
    const parsed = RunAgentInputSchema.safeParse(req.body);
    if (!parsed.success) return res.status(400).json({ error: 'invalid_request', message: 'not a RunAgentInput' });
    const { threadId: asked, runId } = parsed.data;
    const threadId = asked || randomBytes(24).toString('base64url');
    const messageId = `msg_${randomBytes(12).toString('base64url')}`;
    const encoder = new EventEncoder({ accept: req.headers.accept });
    res.writeHead(200, { 'Content-Type': encoder.getContentType(), 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
    const send = (event) => res.write(encoder.encodeBinary(event));
    send({ type: EventType.RUN_STARTED, threadId, runId, protocolVersion: PROTOCOL_VERSION });
    send({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: 'ok' });
    send({ type: EventType.TEXT_MESSAGE_END, messageId });
    send({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'success' } });
    res.end();
  });
  const server = http.createServer(require(CLASSES).expressMessageClasses(app), app);
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
  process.on('message', () => server.close(() => process.exit(0)));
}

/** Starts the floor as a child process (options as startChildServer's); returns its URL, its CPU so far (ms) and stop(). */
async function startAguiFloor(options) {
  return startChildServer(__filename, [], options);
}

module.exports = { startAguiFloor };
