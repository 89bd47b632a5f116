'use strict';
/**
 * The A2A floor: the official SDK alone, as its README wires it: `jsonRpcHandler` over a
 * `DefaultRequestHandler` with the SDK's `InMemoryTaskStore` (kept to the recent tasks), on
 * Express with `express.json()`, on the HTTP server the agent runs on (RestapExpressAdapter's,
 * whose requests are built on Express's prototypes, see express-floor.js). Its executor answers a
 * message at once: one `task` event, completed, with the reply "ok" as its artifact — the fewest
 * events a blocking `SendMessage` can take. No Nest, no module, no database, no conversation. Run
 * as its own process like the agent: its CPU per send is what any A2A agent on this SDK pays
 * before its own work, the figure under issue 19's A2A row.
 */
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { startChildServer } = require('./child-server');
const { CLASSES } = require('./express-floor');

if (require.main === module) {
  const express = require('express');
  const { A2A_PROTOCOL_VERSION, TaskState } = require('@a2a-js/sdk');
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = require('@a2a-js/sdk/server');
  const { jsonRpcHandler, UserBuilder } = require('@a2a-js/sdk/server/express');
  const text = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
  const card = {
    name: 'a2a-floor',
    description: 'The A2A SDK alone',
    supportedInterfaces: [{ url: 'http://127.0.0.1/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: '0.0.0',
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'talk', name: 'Talk', description: 'Replies ok', tags: ['conversation'], examples: [], inputModes: ['text/plain'], outputModes: ['text/plain'], securityRequirements: [] }],
    signatures: [],
  };
  const executor = {
    async execute(request, bus) {
      bus.publish(AgentEvent.task({
        id: request.taskId,
        contextId: request.contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: new Date().toISOString(), message: undefined },
        artifacts: [{ artifactId: randomUUID(), name: 'reply', description: '', parts: [text('ok')], metadata: undefined, extensions: [] }],
        history: [request.userMessage],
        metadata: undefined,
      }));
      bus.finished();
    },
    async cancelTask() {},
  };
  // The SDK's InMemoryTaskStore, in two generations so a run's tens of thousands of tasks do not
  // pile up in the heap (the agent's go to PostgreSQL): every 5,000 saves the older one is dropped.
  const SWAP_EVERY = 5000;
  let current = new InMemoryTaskStore();
  let previous = new InMemoryTaskStore();
  let saves = 0;
  const tasks = {
    async save(task, context) {
      if (++saves % SWAP_EVERY === 0) [previous, current] = [current, new InMemoryTaskStore()];
      await current.save(task, context);
    },
    async load(taskId, context) {
      return (await current.load(taskId, context)) ?? previous.load(taskId, context);
    },
    list: (params, context) => current.list(params, context),
  };
  const app = express();
  app.use(express.json());
  app.use('/a2a', jsonRpcHandler({ requestHandler: new DefaultRequestHandler(card, tasks, executor), userBuilder: UserBuilder.noAuthentication }));
  const server = http.createServer(require(CLASSES).expressMessageClasses(app), app);
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
  process.on('message', () => server.close(() => process.exit(0)));
}

/** Starts the floor as a child process (options as startChildServer's); returns its URL, its CPU so far (ms) and stop(). */
async function startA2aFloor(options) {
  return startChildServer(__filename, [], options);
}

module.exports = { startA2aFloor };
