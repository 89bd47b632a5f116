import { CAPABILITY_EXTENSION_URI } from 'nestjs-restap';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { useSampleAgent } from '../support/sample-app';
import { API_KEY, clientFor, withKey } from './a2a-support';

jest.setTimeout(90_000);

const CARD = '/.well-known/agent-card.json';
const V1 = { 'A2A-Version': '1.0' };

describe('A2A door: the agent card', () => {
  const agent = useSampleAgent({ apiKey: API_KEY });

  it('is public and describes the agent: name, version, JSON-RPC and HTTP+JSON interfaces at 1.0 and 0.3 (issue 38, item 2), streaming, push, modes', async () => {
    const res = await fetch(`${agent.url}${CARD}`, { headers: V1 });
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(card).toMatchObject({
      name: 'Text Analysis Agent',
      description: 'AI agent specialized in text processing and analysis',
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/plain', 'application/json'],
    });
    expect(card.supportedInterfaces).toEqual([
      { url: `${agent.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${agent.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${agent.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${agent.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
  });

  it('skills are the capabilities (id, name from the title, description, tags, examples from DTO examples) plus the conversation', async () => {
    const card = await (await fetch(`${agent.url}${CARD}`, { headers: V1 })).json();
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['talk', 'text.echo', 'text.reverse', 'notes.create', 'notes.list', 'notes.digest', 'notes.get', 'notes.delete']);
    expect(card.skills[2]).toEqual({
      id: 'text.reverse',
      name: 'Reverse text',
      description: 'Returns the input text in reverse order',
      tags: ['capability', 'text'],
      examples: [JSON.stringify({ capability: 'text.reverse', arguments: { text: 'Hello World' } })],
      inputModes: ['application/json'],
      outputModes: ['application/json'],
    });
    expect(card.skills[0]).toMatchObject({ id: 'talk', name: 'Talk to agent', inputModes: ['text/plain'], tags: ['conversation', 'chat'] });
  });

  it('declares the capability extension (schemas in the RESTAP catalog) and the host\'s auth (bearer API key)', async () => {
    const card = await (await fetch(`${agent.url}${CARD}`, { headers: V1 })).json();
    expect(card.capabilities.extensions).toEqual([
      expect.objectContaining({ uri: CAPABILITY_EXTENSION_URI, params: expect.objectContaining({ catalog: '/.well-known/restap.json' }) }),
    ]);
    expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'bearer' }) } });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
  });

  it('the official client reads it from the base URL alone, skills and security included (with the key: the card offers an extended card, issue 38 item 4)', async () => {
    const card = await (await clientFor(agent.url)).getAgentCard(withKey());
    expect(card.skills.map((s) => s.id)).toEqual(['talk', 'text.echo', 'text.reverse', 'notes.create', 'notes.list', 'notes.digest', 'notes.get', 'notes.delete']);
    expect(card.securitySchemes.bearer?.scheme).toEqual({ $case: 'httpAuthSecurityScheme', value: expect.objectContaining({ scheme: 'bearer' }) });
  });

  it('a 0.3 client (no A2A-Version header) gets the 0.3 card shape, with the same skills', async () => {
    const card = await (await fetch(`${agent.url}${CARD}`)).json();
    expect(card).toMatchObject({ url: `${agent.url}/a2a`, protocolVersion: '0.3', preferredTransport: 'JSONRPC', securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } });
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['talk', 'text.echo', 'text.reverse', 'notes.create', 'notes.list', 'notes.digest', 'notes.get', 'notes.delete']);
  });

  it('is served with caching headers like the catalog: ETag, Cache-Control, Vary, and 304 on If-None-Match', async () => {
    const first = await get(`${agent.url}${CARD}`, V1);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/"[^"]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect(first.headers.vary).toContain('A2A-Version');
    // A cache revalidating (fetch() would add Cache-Control: no-cache, which asks for the full body).
    expect((await get(`${agent.url}${CARD}`, { ...V1, 'If-None-Match': etag })).status).toBe(304);
    expect((await get(`${agent.url}${CARD}`, { ...V1, 'If-None-Match': '"other"' })).status).toBe(200);
    // Each protocol version has its own representation, hence its own tag.
    expect((await get(`${agent.url}${CARD}`, {})).headers.etag).not.toBe(etag);
  });

  it('issue 38, item 6: a strong ETag, Last-Modified, and 304 to a conditional request even with Cache-Control: no-cache (a browser reload)', async () => {
    const first = await get(`${agent.url}${CARD}`, V1);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    expect(new Date(first.headers['last-modified'] as string).getTime()).toBeLessThanOrEqual(Date.now());
    expect((await get(`${agent.url}${CARD}`, { ...V1, 'If-None-Match': etag, 'Cache-Control': 'no-cache', Pragma: 'no-cache' })).status).toBe(304);
    // The weak form a cache may send still matches (weak comparison, RFC 9110 13.1.2).
    expect((await get(`${agent.url}${CARD}`, { ...V1, 'If-None-Match': `W/${etag}` })).status).toBe(304);
    // Without a condition, no-cache gets the full card.
    expect((await get(`${agent.url}${CARD}`, { ...V1, 'Cache-Control': 'no-cache' })).status).toBe(200);
  });

  it('issue 38, item 6: CORS — any page may read the public card; the preflight is answered', async () => {
    const res = await fetch(`${agent.url}${CARD}`, { headers: { ...V1, Origin: 'https://elsewhere.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/ETag/);
    const preflight = await fetch(`${agent.url}${CARD}`, { method: 'OPTIONS', headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'a2a-version' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('a2a-version');
  });

  it('is also found under the A2A endpoint (for a client given the catalog\'s endpoint as its base URL)', async () => {
    const card = await (await clientFor(`${agent.url}/a2a`)).getAgentCard(withKey());
    expect(card.name).toBe('Text Analysis Agent');
  });

  it('the RESTAP catalog says protocols.a2a is available, at the JSON-RPC endpoint', async () => {
    const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
    expect(catalog.protocols.a2a).toEqual({ available: true, endpoint: '/a2a' });
  });
});

/** A plain GET (no fetch() cache headers added), status and headers. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    }).on('error', reject).end();
  });
}
