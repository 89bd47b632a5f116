import { createMcpHandler, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { bindCall, callOf, type McpCall } from './mcp-call.context';

const MODERN = '2026-07-28';

/** A server with one tool answering the `x-who` header of the caller bound to the request it serves. */
function whoServer(): McpServer {
  const server = new McpServer({ name: 'who', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('who', { description: 'Who is calling.' }, (ctx: ServerContext) => ({
    content: [{ type: 'text', text: String(callOf(ctx).caller.headers['x-who'] ?? 'anonymous') }],
  }));
  return server;
}

function modernCall(id: number): { request: Request; body: unknown } {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'who', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'who' };
  return { request: new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) }), body };
}

function legacyCall(id: number): { request: Request; body: unknown } {
  const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'who', arguments: {} } };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  return { request: new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) }), body };
}

const as = (who: string): McpCall => ({ caller: { headers: { 'x-who': who } } });

describe('the call a handler finds is the one bound to the request it serves (the SDK hands it that Request as ctx.http.req)', () => {
  const handler = createMcpHandler(() => whoServer());
  afterAll(() => handler.close());

  it.each([
    ['2026-07-28', modernCall],
    ['2025-era stateless', legacyCall],
  ])('%s: requests bound before any of them is served each answer their own caller; an unbound one is anonymous', async (_era, make) => {
    const names = ['alice', 'bob', 'carol'];
    const calls = names.map((_, i) => make(i + 1));
    calls.forEach(({ request }, i) => bindCall(request, as(names[i])));
    const unbound = make(9);
    // All in flight at once, as the door serves them: no handler has run when the last is bound.
    const responses = await Promise.all([...calls, unbound].map(({ request, body }) => handler.fetch(request, { parsedBody: body })));
    const texts = await Promise.all(responses.map((response) => response.text()));
    names.forEach((name, i) => expect(texts[i]).toContain(`"text":"${name}"`));
    expect(texts[3]).toContain('"text":"anonymous"');
  });
});
