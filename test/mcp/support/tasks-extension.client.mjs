// A 2026-07-28 MCP client with the Tasks extension (io.modelcontextprotocol/tasks), run by Node as
// ESM: the official 2.x client (@modelcontextprotocol/client) pinned to 2026-07-28 and
// @modelcontextprotocol/ext-tasks' requester session over it. Both are ESM only where Jest's CommonJS
// runtime cannot load them, so test/mcp/mcp-tasks-extension.e2e-spec.ts runs this file as a child
// process: `node tasks-extension.client.mjs '<json step list>'`, one JSON line out.
//
// The extension's V2 requests (tools/call and tasks/*) go through `rawDispatch`, as the extension
// asks of a host: a second StreamableHTTPClientTransport of the same SDK, with request ids and
// response matching of its own (the Client would refuse `resultType: "task"`). The extension frames
// every such request (its per-request capabilities and protocol version); the transport derives the
// standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) from it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';

const PROTOCOL = '2026-07-28';
const INFO = { name: 'restap-tasks-extension-e2e', version: '1.0.0' };

/** A raw request coordinator over its own transport: ids, response matching, aborts. */
async function coordinator(url, headers) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const pending = new Map();
  let next = 0;
  transport.onmessage = (message) => {
    const waiter = 'id' in message ? pending.get(message.id) : undefined;
    if (!waiter || !('result' in message || 'error' in message)) return;
    pending.delete(message.id);
    waiter(message);
  };
  transport.onerror = () => undefined;
  await transport.start();
  const raw = {
    transport,
    /** What the last tools/call answered on the wire (a CreateTaskResult, or a plain result). */
    lastToolsCall: undefined,
    dispatch: async (request, options = {}) => {
      const id = `raw-${++next}`;
      const answered = new Promise((resolve, reject) => {
        pending.set(id, resolve);
        options.signal?.addEventListener('abort', () => reject(options.signal.reason), { once: true });
      });
      await transport.send({ jsonrpc: '2.0', id, ...request });
      const message = await answered;
      if (request.method === 'tools/call') raw.lastToolsCall = message.result ?? message.error;
      return 'error' in message ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result };
    },
  };
  return raw;
}

/** A 2.x client pinned to 2026-07-28; with `tasks`, an ext-tasks session over it. */
async function connect(url, headers, tasks) {
  const client = new Client(INFO, { versionNegotiation: { mode: { pin: PROTOCOL } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  if (!tasks) return { client, close: () => client.close() };
  const raw = await coordinator(url, headers);
  const session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch: raw.dispatch,
    v2RequestFraming: { protocolVersion: PROTOCOL, clientInfo: INFO, clientCapabilities: {} },
  });
  return {
    client,
    session,
    raw,
    close: async () => {
      await session.close();
      await raw.transport.close();
      await client.close();
    },
  };
}

/** A Standard Schema that takes any JSON (the answer is checked by the test, not here). */
const anyJson = { '~standard': { version: 1, vendor: 'restap-e2e', validate: (value) => ({ value }) } };

const errorOf = (error) => ({ name: error?.name, message: error?.message, code: error?.code, data: error?.data });

/**
 * The steps, each `{ do, ... }`, run in order against named connections; every step's answer is
 * kept under its `as` name (or its index). Steps:
 * - connect {as, url, headers, tasks}: a client (with the extension when `tasks`)
 * - capabilities {on}: the server's capabilities as the client sees them
 * - call {on, name, arguments, wait}: session.callTool; the execution's kind and task id, the time
 *   the call took, what tools/call answered on the wire, and with `wait` its settled outcome
 * - plainCall {on, name, arguments}: the client's own callTool (no extension), and the time taken
 * - snapshot {on, taskId}: session.task(id).snapshot()
 * - result {on, taskId}: session.task(id).result() — polls tasks/get until the task ends
 * - cancel {on, taskId}: session.cancelTask(id)
 * - sleep {ms}
 * - clientRequest {on, method, params}: the plain client's request (no extension declared)
 * - raw {on, request}: the coordinator's dispatch of a request as given (no framing)
 * A `taskId` may be `{ from: "<key>" }`, the task id an earlier step answered. A step that throws
 * answers `{ thrown }` and ends the run unless it says `mayThrow`.
 */
async function main() {
  const steps = JSON.parse(process.argv[2]);
  const connections = new Map();
  const out = {};
  try {
    for (const [index, step] of steps.entries()) {
      const key = step.as ?? String(index);
      const on = connections.get(step.on);
      // `taskId: { from: "<key>" }`: the task id an earlier step answered.
      if (step.taskId && typeof step.taskId === 'object') step.taskId = out[step.taskId.from]?.taskId;
      try {
        switch (step.do) {
          case 'connect':
            connections.set(step.as, await connect(step.url, step.headers ?? {}, step.tasks));
            out[key] = { connected: true };
            break;
          case 'capabilities':
            out[key] = on.client.getServerCapabilities();
            break;
          case 'call': {
            const started = Date.now();
            const execution = await on.session.callTool(step.name, step.arguments);
            const answer = { kind: execution.kind, ms: Date.now() - started, wire: on.raw.lastToolsCall, ...(execution.handle ? { taskId: execution.handle.taskId } : {}) };
            if (step.wait) {
              const { outcome } = await execution.settle();
              answer.outcome = outcome.status === 'failed' ? { status: 'failed', error: errorOf(outcome.error) } : outcome;
              if (outcome.status === 'completed') answer.result = resultFromTaskOutcome(outcome);
            } else {
              await execution.detach();
            }
            out[key] = answer;
            break;
          }
          case 'plainCall': {
            const started = Date.now();
            const result = await on.client.callTool({ name: step.name, arguments: step.arguments });
            out[key] = { ms: Date.now() - started, result };
            break;
          }
          case 'snapshot':
            out[key] = await on.session.task(step.taskId).snapshot();
            break;
          case 'result': {
            const outcome = await on.session.task(step.taskId).result();
            out[key] = outcome.status === 'failed' ? { status: 'failed', error: errorOf(outcome.error) } : outcome;
            break;
          }
          case 'cancel':
            await on.session.cancelTask(step.taskId);
            out[key] = { cancelled: true };
            break;
          case 'sleep':
            await new Promise((resolve) => setTimeout(resolve, step.ms));
            out[key] = { slept: step.ms };
            break;
          case 'clientRequest':
            // The client's own request path (its own per-request capabilities, no extension).
            out[key] = await on.client.request({ method: step.method, params: step.params }, anyJson);
            break;
          case 'raw':
            out[key] = await on.raw.dispatch(step.request);
            break;
          default:
            throw new Error(`unknown step ${step.do}`);
        }
      } catch (error) {
        out[key] = { thrown: errorOf(error) };
        if (!step.mayThrow) break;
      }
    }
  } finally {
    for (const connection of connections.values()) await connection.close().catch(() => undefined);
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ fatal: errorOf(error) })}\n`);
  process.exitCode = 1;
});
