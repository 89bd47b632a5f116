'use strict';
/**
 * The doors' rows of `npm run bench` (issue 19, "new doors cost little"): the agent's CPU per
 * request through a door beside the same work through the RESTAP HTTP route, in alternating
 * baseline/scenario rounds, keeping the pair with the median CPU ratio (as run.js's `paired`
 * does for throughput). CPU, not throughput, is the target: both sides run on the same agent, and
 * the load generator shares the machine. Every answer is checked (autocannon's verifyBody), so a
 * door that answers fast but wrong shows as errors, not as a good figure.
 *
 * - MCP `tools/call` of text_echo (protocol 2026-07-28, stateless: no initialize, one POST, a JSON
 *   answer) vs POST /text/echo.
 * - A2A `SendMessage` (JSON-RPC, A2A-Version 1.0) vs a /talk JSON turn, on the bench responder.
 * - A talk turn in which the model calls text_echo once, beside a plain turn plus the capability
 *   called over HTTP — on a second agent whose model is bench/lib/fake-llm.js.
 * - Under the MCP and A2A rows, each door's floor: the official SDK alone in its own process
 *   (bench/lib/mcp-floor.js, bench/lib/a2a-floor.js), answering the same request with no Nest, no
 *   module and no database, beside the same baseline. A door cannot cost less than its SDK.
 */
const load = require('./load');
const { startAgent } = require('./server');
const { startFakeLlm, TOOL_TRIGGER, TOOL_REPLY, PLAIN_REPLY } = require('./fake-llm');
const { startMcpFloor } = require('./mcp-floor');
const { startA2aFloor } = require('./a2a-floor');

const MCP_PROTOCOL = '2026-07-28';
const JSON_HEADERS = { 'content-type': 'application/json' };
const echoed = (body) => body.includes('"echoed_text":"hi"');

/** The requests the rows send, each with the check its answer must pass. */
const REQUESTS = {
  httpEcho: { path: '/text/echo', method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ text: 'hi' }), verify: echoed },
  mcpEcho: {
    path: '/mcp',
    method: 'POST',
    // A 2026-07-28 request names its method (and tool) in headers, and carries its envelope in _meta.
    headers: { ...JSON_HEADERS, accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_PROTOCOL, 'mcp-method': 'tools/call', 'mcp-name': 'text_echo' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'text_echo', arguments: { text: 'hi' }, _meta: { 'io.modelcontextprotocol/protocolVersion': MCP_PROTOCOL, 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
    verify: (body) => echoed(body) && body.includes('"resultType":"complete"') && !body.includes('"isError":true'),
  },
  talk: { path: '/talk', method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ message: 'hi' }), verify: (body) => body.includes('"reply":"ok"') },
  a2aSend: {
    path: '/a2a',
    method: 'POST',
    headers: { ...JSON_HEADERS, 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'bench-m1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
    verify: (body) => body.includes('"TASK_STATE_COMPLETED"') && body.includes('"text":"ok"'),
  },
  plainTurn: { path: '/talk', method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ message: 'hi' }), verify: (body) => body.includes(`"reply":"${PLAIN_REPLY}"`) },
  toolTurn: { path: '/talk', method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ message: `${TOOL_TRIGGER} hi` }), verify: (body) => body.includes(`"reply":"${TOOL_REPLY}"`) },
};

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const failures = (r) => r.errors + r.non2xx + r.mismatches;

/** One autocannon run of `request` against `agent`, with the agent's CPU ms per request (from /proc). */
async function cpuLoad(agent, request, { seconds, connections }) {
  const before = agent.cpuMs();
  const result = await load.http({ url: `${agent.url}${request.path}`, method: request.method, headers: request.headers, body: request.body, verifyBody: request.verify, connections, seconds });
  return { ...result, cpuPerReq: (agent.cpuMs() - before) / Math.max(1, result.total) };
}

/** `rounds` alternating (baseline, scenario) pairs; the pair with the median CPU ratio scenario/baseline. */
const cpuPaired = (rounds, baseline, scenario) => load.paired(rounds, baseline, scenario, (run, base) => run.cpuPerReq / base.cpuPerReq);

/** A short run of each request first: JIT warm-up, and a first answer checked before any figure. */
async function warm(agent, requests, opts, seconds = 1) {
  for (const request of requests) {
    const result = await cpuLoad(agent, request, { ...opts, seconds });
    if (!result.total || failures(result)) {
      throw new Error(`warm-up of ${request.method} ${request.path} failed: ${result.total} answers, errors ${result.errors}, non-2xx ${result.non2xx}, wrong answers ${result.mismatches}`);
    }
  }
}

/**
 * A door's floor row: `floor` (its SDK alone, a child process) answering `request`, beside the
 * agent's `baseline`, in alternating rounds by CPU per request; stops the floor. Reported, not judged.
 */
async function floorRow({ floor, agent, baseline, request, opts, rounds, record, scenario, baselineName, what }) {
  try {
    // A fresh process: warmed as long as a measured run, as the agent has been by the rows before.
    await warm(floor, [request], opts, opts.seconds);
    const row = await cpuPaired(rounds, () => cpuLoad(agent, baseline, opts), () => cpuLoad(floor, request, opts));
    record(
      scenario,
      `CPU ${fmt(row.run.cpuPerReq, 3)} ms/req`,
      `${baselineName} ${fmt(row.base.cpuPerReq, 3)} ms/req`,
      `${fmt(row.ratio, 2)}x`,
      'reported',
      !failures(row.run) && !failures(row.base),
      `${fmt(row.run.rps)} vs ${fmt(row.base.rps)} req/s; errors ${failures(row.run)} vs ${failures(row.base)}; ${what}; CPU ratio per round ${row.ratios}`,
    );
  } finally {
    await floor.stop();
  }
}

/**
 * Measures the three rows and hands each to `record(scenario, figure, baseline, ratio, target, pass, note)`.
 * `agent` is the bench agent (RESTAP_BENCH=1); the model-backed agent is started here on `databaseUrl`.
 */
async function doorScenarios({ agent, databaseUrl, seconds, rounds, connections, record, only }) {
  const opts = { seconds, connections };
  const { httpEcho, mcpEcho, talk, a2aSend, plainTurn, toolTurn } = REQUESTS;
  const runs = (row) => !only || only.includes(row);
  await warm(agent, [...(runs('mcp') ? [httpEcho, mcpEcho] : []), ...(runs('a2a') ? [talk, a2aSend] : [])], opts);

  if (runs('mcp')) {
    const mcp = await cpuPaired(rounds, () => cpuLoad(agent, httpEcho, opts), () => cpuLoad(agent, mcpEcho, opts));
    record(
      'MCP tools/call text_echo (2026-07-28, stateless JSON)',
      `agent CPU ${fmt(mcp.run.cpuPerReq, 3)} ms/req`,
      `POST /text/echo over HTTP ${fmt(mcp.base.cpuPerReq, 3)} ms/req`,
      `${fmt(mcp.ratio, 2)}x`,
      'reported (issue 41 judges the door against its floor: the instructions rows)',
      !failures(mcp.run) && !failures(mcp.base),
      `${fmt(mcp.run.rps)} vs ${fmt(mcp.base.rps)} req/s; errors ${failures(mcp.run)} vs ${failures(mcp.base)} (non-2xx or wrong answer included); CPU ratio per round ${mcp.ratios}`,
    );
    const echo = (await (await fetch(`${agent.url}/.well-known/restap.json`)).json()).capabilities.find((c) => c.id === 'text.echo');
    await floorRow({
      floor: await startMcpFloor({ inputSchema: echo.input_schema, outputSchema: echo.output_schema }),
      agent, baseline: httpEcho, request: mcpEcho, opts, rounds, record,
      scenario: 'MCP floor: the official SDK alone, the same tools/call (createMcpHandler on node:http, one tool, no Nest, no module)',
      baselineName: "the agent's POST /text/echo",
      what: "the agent's input and output schemas, the sample's answer; what the SDK costs before any door or capability runs",
    });
  }

  if (runs('a2a')) {
    const a2a = await cpuPaired(rounds, () => cpuLoad(agent, talk, opts), () => cpuLoad(agent, a2aSend, opts));
    record(
      'A2A SendMessage (JSON-RPC, A2A-Version 1.0)',
      `agent CPU ${fmt(a2a.run.cpuPerReq, 3)} ms/req`,
      `/talk JSON turn ${fmt(a2a.base.cpuPerReq, 3)} ms/req`,
      `${fmt(a2a.ratio, 2)}x`,
      'reported (issue 41 judges the door against its floor: the instructions rows)',
      !failures(a2a.run) && !failures(a2a.base),
      `${fmt(a2a.run.rps)} vs ${fmt(a2a.base.rps)} req/s; errors ${failures(a2a.run)} vs ${failures(a2a.base)}; each send a new task (stored) answered by the bench responder; CPU ratio per round ${a2a.ratios}`,
    );
    await floorRow({
      floor: await startA2aFloor(),
      agent, baseline: talk, request: a2aSend, opts, rounds, record,
      scenario: 'A2A floor: the official SDK alone, the same SendMessage (jsonRpcHandler, in-memory tasks, an instant reply, no Nest, no module, no DB)',
      baselineName: "the agent's /talk JSON turn",
      what: 'one completed task event per send; what the SDK costs before any door, turn or storage',
    });
  }

  if (!runs('tools')) return;
  const llm = await startFakeLlm();
  const modelAgent = await startAgent({
    port: 3800 + Math.floor(Math.random() * 90),
    env: { DATABASE_URL: databaseUrl, RESTAP_RATE_LIMIT: '0', LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'bench-fake' },
  });
  try {
    await warm(modelAgent, [plainTurn, httpEcho, toolTurn], opts);
    const sum = (a, b) => ({ cpuPerReq: a.cpuPerReq + b.cpuPerReq, plain: a, echo: b });
    const tools = await cpuPaired(
      rounds,
      async () => sum(await cpuLoad(modelAgent, plainTurn, opts), await cpuLoad(modelAgent, httpEcho, opts)),
      () => cpuLoad(modelAgent, toolTurn, opts),
    );
    const { plain, echo } = tools.base;
    const baseFailures = failures(plain) + failures(echo);
    record(
      'talk turn with one tool call (text_echo), fake model on loopback',
      `agent CPU ${fmt(tools.run.cpuPerReq, 3)} ms/turn`,
      `plain turn ${fmt(plain.cpuPerReq, 3)} + POST /text/echo ${fmt(echo.cpuPerReq, 3)} = ${fmt(tools.base.cpuPerReq, 3)} ms`,
      `${fmt(tools.ratio, 2)}x`,
      'reported',
      !failures(tools.run) && !baseFailures && llm.counts.errors === 0,
      `${fmt(tools.run.rps)} tool turns/s (two model calls each), plain ${fmt(plain.rps)} turns/s, echo ${fmt(echo.rps)} req/s; errors ${failures(tools.run)} vs ${baseFailures}; the model's CPU is not the agent's; CPU ratio per round ${tools.ratios}`,
    );
  } finally {
    await modelAgent.stop();
    await llm.close();
  }
}

module.exports = { doorScenarios, REQUESTS, MCP_PROTOCOL };
