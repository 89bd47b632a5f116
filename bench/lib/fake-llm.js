'use strict';
/**
 * A bench fixture: an OpenAI-compatible chat-completions server on loopback (the model is the only
 * fake allowed) for the talk-with-tools rows. Plain CommonJS on `node:http`, so the bench loads no
 * test code (test/support/fake-llm.ts is TypeScript and lives with jest).
 *
 * Scripted like a model that needs one tool: a user message containing TOOL_TRIGGER is answered
 * with one streamed call of `text_echo` {"text":"hi"}; once the conversation holds that call's
 * result, with the text TOOL_REPLY (TOOL_FAILED if the result is not text_echo's answer); any other message, with PLAIN_REPLY. Streams only (the sample's
 * tool loop always asks with `stream: true`); each reply is a handful of SSE frames, so the fake's
 * own cost is small and, running in the bench process, never counted as the agent's CPU.
 */
const http = require('node:http');

const TOOL_TRIGGER = 'please echo';
const TOOL_REPLY = 'echoed';
const PLAIN_REPLY = 'plain';
const TOOL_FAILED = 'the tool failed';

/** The assistant message the script gives for a request's messages: text, or one tool call. */
function scripted(messages) {
  const last = messages[messages.length - 1] ?? {};
  // The capability's answer must be in the tool result, or the turn's reply says it was not.
  if (last.role === 'tool') return { text: String(last.content).includes('"echoed_text":"hi"') ? TOOL_REPLY : TOOL_FAILED };
  if (last.role === 'user' && String(last.content).includes(TOOL_TRIGGER)) {
    return { call: { id: `call_${Math.random().toString(36).slice(2, 10)}`, name: 'text_echo', arguments: '{"text":"hi"}' } };
  }
  return { text: PLAIN_REPLY };
}

function frame(delta, finish) {
  return `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** Starts the fake; resolves to { baseUrl, counts: { requests, toolCalls, errors }, close() }. */
async function startFakeLlm() {
  const counts = { requests: 0, toolCalls: 0, errors: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      if (req.method !== 'POST' || !/\/chat\/completions\/?$/.test(req.url ?? '') || !body || !Array.isArray(body.messages)) {
        counts.errors++;
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }));
        return;
      }
      counts.requests++;
      const reply = scripted(body.messages);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let out = frame({ role: 'assistant', content: reply.text ?? null }, null);
      if (reply.call) {
        counts.toolCalls++;
        out += frame({ tool_calls: [{ index: 0, id: reply.call.id, type: 'function', function: { name: reply.call.name, arguments: '' } }] }, null);
        out += frame({ tool_calls: [{ index: 0, function: { arguments: reply.call.arguments } }] }, null);
      }
      out += frame({}, reply.call ? 'tool_calls' : 'stop');
      res.end(`${out}data: [DONE]\n\n`);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    counts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

module.exports = { startFakeLlm, TOOL_TRIGGER, TOOL_REPLY, PLAIN_REPLY };
