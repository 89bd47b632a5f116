import { useSampleAgent } from '../support/sample-app';
import { createTestDatabase, useTestDatabase } from '../support/test-database';
import type { RunningApp } from '../support/sample-app';
import { CLIENT_KINDS, connectClient } from './mcp-clients';
import { startMcpFixture } from './mcp-fixture-app';

// Issue 15, item 6: the host's auth, the Origin check against DNS rebinding, body limits, no stack.
jest.setTimeout(60_000);

const API_KEY = 'mcp-security-key-0123456789';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('MCP door security on the sample (API key set)', () => {
  const agent = useSampleAgent({ apiKey: API_KEY });

  it('without the API key: 401 unauthorized with WWW-Authenticate, in the RESTAP error shape', async () => {
    const res = await post(`${agent.url}/mcp`, INITIALIZE);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="restap"');
    expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
  });

  it.each(CLIENT_KINDS)('the %s client is refused without the key and connects with it', async (kind) => {
    await expect(connectClient(kind, `${agent.url}/mcp`)).rejects.toThrow();
    const client = await connectClient(kind, `${agent.url}/mcp`, { 'X-API-Key': API_KEY });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it('a foreign Origin gets 403 before anything runs; loopback origins pass', async () => {
    const foreign = await post(`${agent.url}/mcp`, INITIALIZE, { Origin: 'https://evil.example', 'X-API-Key': API_KEY });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).not.toMatch(/\bat \S+ \(/);
    const local = await post(`${agent.url}/mcp`, INITIALIZE, { Origin: 'http://localhost:6274', 'X-API-Key': API_KEY });
    expect(local.status).toBe(200);
  });

  it('a body over limits.bodyBytes is 413 payload_too_large; a non-JSON body 415; malformed JSON 400 with the JSON-RPC parse error -32700 (issue 38, item 1)', async () => {
    const auth = { 'X-API-Key': API_KEY };
    const big = await post(`${agent.url}/mcp`, { ...INITIALIZE, params: { ...INITIALIZE.params, pad: 'x'.repeat(1024 * 1024 + 1) } }, auth);
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'payload_too_large' });
    const text = await fetch(`${agent.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'text/plain', ...auth }, body: 'hello' });
    expect(text.status).toBe(415);
    const broken = await post(`${agent.url}/mcp`, '{"jsonrpc": ', auth);
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('a malformed Restap-Session-Id is 400 invalid_session_id, as on /news', async () => {
    const res = await post(`${agent.url}/mcp`, INITIALIZE, { 'X-API-Key': API_KEY, 'Restap-Session-Id': 'short' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_session_id' });
  });
});

describe('MCP door: mcp.allowedOrigins, rateLimit, off by default', () => {
  const db = useTestDatabase();
  const extra: Array<{ drop(): Promise<void> }> = [];
  afterAll(async () => {
    for (const d of extra) await d.drop();
  });
  let app: RunningApp;
  beforeAll(async () => {
    app = await startMcpFixture(db.target, { mcp: { enabled: true, allowedOrigins: ['app.example.com'] } });
  });
  afterAll(() => app?.close());

  it('an origin listed in allowedOrigins passes (with CORS for its page), another is 403', async () => {
    const allowed = await post(`${app.url}/mcp`, INITIALIZE, { Origin: 'https://app.example.com' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const preflight = await fetch(`${app.url}/mcp`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/MCP-Protocol-Version/);
    expect((await post(`${app.url}/mcp`, INITIALIZE, { Origin: 'https://app.example.com.evil.example' })).status).toBe(403);
  });

  it('the rateLimit option counts MCP requests on their own, before the body: 429 with Retry-After', async () => {
    const limited = await startMcpFixture((await createTestDatabase().then((d) => (extra.push(d), d))).target, { mcp: { enabled: true }, rateLimit: { limit: 2, ttlMs: 60_000 } });
    try {
      for (let i = 0; i < 2; i++) expect((await post(`${limited.url}/mcp`, INITIALIZE)).status).toBe(200);
      const refused = await post(`${limited.url}/mcp`, INITIALIZE);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ error: 'too_many_requests' });
    } finally {
      await limited.close();
    }
  });

  it('the endpoint is off unless enabled: without mcp the path is the host\'s (404)', async () => {
    const db2 = await createTestDatabase();
    const off = await startMcpFixture(db2.target, { mcp: { enabled: false } });
    try {
      expect((await post(`${off.url}/mcp`, INITIALIZE)).status).toBe(404);
      const catalog = await (await fetch(`${off.url}/.well-known/restap.json`)).json();
      expect(catalog.protocols?.mcp).toBeUndefined();
    } finally {
      await off.close();
      await db2.drop();
    }
  });
});
