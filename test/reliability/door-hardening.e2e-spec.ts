import { ConsoleLogger } from '@nestjs/common';
import { connectModern } from '../mcp/mcp-clients';
import { useTestDatabase } from '../support/test-database';
import { rawRequest } from './support/raw-http';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 32, items 4, 5, 10, 12, 13 and 14 (MCP): what hostile clients found on the MCP and A2A doors
// and the playground.
jest.setTimeout(90_000);

/** Keeps what the app logs, to check its lines. */
class KeptLog extends ConsoleLogger {
  readonly lines: string[] = [];
  override log(message: unknown): void { this.lines.push(String(message)); }
  override warn(message: unknown): void { this.lines.push(String(message)); }
  override error(message: unknown): void { this.lines.push(String(message)); }
}

const sendMessage = (id: number, text = 'hi') => JSON.stringify({
  jsonrpc: '2.0', id, method: 'SendMessage',
  params: { message: { messageId: `m-${id}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } },
});

describe('issue 32 — hardening of the MCP and A2A doors and the playground', () => {
  const db = useTestDatabase();
  const log = new KeptLog();
  let app: ReliabilityApp;
  beforeAll(async () => {
    app = await startReliabilityApp(db.target, {
      logger: log,
      restap: { a2a: { enabled: true }, mcp: { enabled: true }, playground: { enabled: true }, talk: { maxStreamsPerClient: 3 } },
    });
  });
  afterAll(() => app?.close());

  describe('item 4 — no cross-site request forgery: a body must be declared JSON on every door', () => {
    it.each([
      ['no Content-Type', undefined],
      ['text/plain (what a no-cors fetch or a form sends)', 'text/plain'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ])('/a2a answers 415 to a body with %s (as A2A\'s ContentTypeNotSupportedError, -32005: issue 38), and nothing runs', async (_what, type) => {
      const headers: Record<string, string> = { 'A2A-Version': '1.0' };
      if (type) headers['Content-Type'] = type;
      const answer = await rawRequest(app.url, { method: 'POST', path: '/a2a', headers, body: sendMessage(1) });
      expect(answer.status).toBe(415);
      expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005, message: expect.any(String) } });
      expect(app.brain.calls).toBe(0);
    });

    it('/mcp answers 415 to a body without Content-Type; application/a2a+json is A2A JSON', async () => {
      const mcp = await rawRequest(app.url, { method: 'POST', path: '/mcp', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      expect(mcp.status).toBe(415);
      const a2a = await rawRequest(app.url, { method: 'POST', path: '/a2a', headers: { 'Content-Type': 'application/a2a+json', 'A2A-Version': '1.0' }, body: sendMessage(2) });
      expect(a2a.status).toBe(200);
    });
  });

  describe('item 10 — a method or Host the SDK cannot take is a 4xx, never a 500', () => {
    it.each(['TRACE', 'PUT', 'PATCH', 'OPTIONS'])('%s /mcp: 405 method_not_allowed with Allow', async (method) => {
      const answer = await rawRequest(app.url, { method, path: '/mcp' });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('GET, POST, DELETE');
      expect(JSON.parse(answer.text).error).toBe('method_not_allowed');
    });

    it.each(['user@evil.example', 'evil host', '[::1', '127.0.0.1:99999', 'a/b'])('Host %j on /mcp: 400 invalid_request', async (host) => {
      const answer = await rawRequest(app.url, {
        method: 'POST', path: '/mcp', headers: { Host: host, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toEqual({ error: 'invalid_request', message: 'The Host header is not a valid host[:port].' });
    });

    it('a valid Host with a port, a name or an IPv6 literal passes', async () => {
      for (const host of ['localhost:3000', 'agent.example.com', '[::1]:8080']) {
        const answer = await rawRequest(app.url, { method: 'GET', path: '/.well-known/agent-card.json', headers: { Host: host } });
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.text).supportedInterfaces[0].url).toBe(`http://${host}/a2a`);
      }
    });
  });

  describe('item 12 — the agent card never carries a URL built from a malformed Host', () => {
    it.each(['user@evil.example', 'evil.example/<script>', 'x y'])('Host %j: 400 invalid_request, no card', async (host) => {
      const answer = await rawRequest(app.url, { method: 'GET', path: '/.well-known/agent-card.json', headers: { Host: host } });
      expect(answer.status).toBe(400);
      expect(answer.text).not.toContain('evil');
      expect(answer.headers['cache-control']).toBe('no-store');
    });
  });

  describe('item 13 — the playground\'s 404 and 405 carry its security headers', () => {
    it.each([['GET', '/playground/nope.js', 404], ['POST', '/playground', 405]])('%s %s: %d with CSP, nosniff and frame-ancestors', async (method, path, status) => {
      const answer = await rawRequest(app.url, { method, path });
      expect(answer.status).toBe(status);
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(answer.text).error).toMatch(/^(not_found|method_not_allowed)$/);
    });
  });

  describe('item 14 — what the MCP SDK says about a request is logged on one short line', () => {
    it('a 16 KB header value the SDK rejects is not echoed into the log', async () => {
      const huge = `2025-11-25${'x'.repeat(16_000)}`;
      const answer = await rawRequest(app.url, {
        method: 'POST', path: '/mcp',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': huge },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      for (const line of log.lines) {
        expect(line.length).toBeLessThanOrEqual(400);
        expect(line).not.toMatch(/\n/);
      }
    });
  });

  describe('item 5 — the open-stream caps apply to every door\'s streams, not only /talk', () => {
    beforeAll(() => {
      // A turn that streams for a while: A2A streaming calls stay open meanwhile (and end before the app closes).
      app.brain.behaviour = (ctx) => (async function* () {
        yield 'working';
        await new Promise((resolve) => {
          ctx.signal.addEventListener('abort', resolve);
          setTimeout(resolve, 1_500);
        });
      })();
    });
    afterAll(async () => {
      // The tasks of the refused-stream test end by themselves within 1.5 s: before the database goes.
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      app.brain.behaviour = (ctx) => `echo: ${ctx.message}`;
    });

    it('A2A SendStreamingMessage: past talk.maxStreamsPerClient (3), 429 too_many_requests with Retry-After', async () => {
      const open: AbortController[] = [];
      try {
        const stream = async (): Promise<Response> => {
          const abort = new AbortController();
          open.push(abort);
          return fetch(`${app.url}/a2a`, {
            method: 'POST', signal: abort.signal,
            headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
            body: sendMessage(10).replace('"SendMessage"', '"SendStreamingMessage"'),
          });
        };
        const accepted = [await stream(), await stream(), await stream()];
        expect(accepted.map((r) => r.status)).toEqual([200, 200, 200]);
        const refused = await stream();
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(await refused.json()).toEqual({ error: 'too_many_requests', message: expect.stringMatching(/per client/) });
      } finally {
        for (const abort of open) abort.abort();
      }
    });

    it('MCP subscriptions/listen: the fourth listener of one client is refused, and a slot frees when one closes', async () => {
      const clients = await Promise.all([1, 2, 3, 4].map(() => connectModern(`${app.url}/mcp`)));
      try {
        const listening = [] as Array<{ close?: () => unknown }>;
        for (const client of clients.slice(0, 3)) listening.push(await client.listen({ resourceSubscriptions: ['restap://news'] }) as { close?: () => unknown });
        await expect(clients[3].listen({ resourceSubscriptions: ['restap://news'] })).rejects.toThrow(/429|Too Many|too_many/i);
        await clients[0].close();
        await new Promise((resolve) => setTimeout(resolve, 200));
        await expect(clients[3].listen({ resourceSubscriptions: ['restap://news'] })).resolves.toBeDefined();
      } finally {
        for (const client of clients) await client.close().catch(() => undefined);
      }
    });
  });
});
