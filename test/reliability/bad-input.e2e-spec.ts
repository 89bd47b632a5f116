import { gzipSync } from 'node:zlib';
import { useSampleAgent } from '../support/sample-app';
import { contractViolation, rawRequest, type RawRequest } from './support/raw-http';

// Issue 6, "Tests must show": a bad-input corpus over every module route — never 5xx, never HTML,
// always the {"error", "message"} shape.
jest.setTimeout(120_000);

const SESSION = 'corpus-session-0123456789abcdef';
const json = { 'Content-Type': 'application/json' };
const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number): string => `{"type":"t","data":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;

/** Bodies no POST route may answer with a 5xx, HTML or another error shape. */
const BODIES: Array<[string, string | Buffer]> = [
  ['empty', ''],
  ['whitespace', '   \n'],
  ['truncated object', '{"message": "hi"'],
  ['truncated string', '{"message": "hi'],
  ['truncated after colon', '{"type":'],
  ['bare word', 'nul'],
  ['null', 'null'],
  ['true', 'true'],
  ['number', '42'],
  ['string', '"hello"'],
  ['empty array', '[]'],
  ['array of objects', '[{"message":"hi","type":"t"}]'],
  ['empty object', '{}'],
  ['message null', '{"message": null}'],
  ['message number', '{"message": 42}'],
  ['message array', '{"message": ["a"]}'],
  ['message object', '{"message": {"a": 1}}'],
  ['message blank', '{"message": "   "}'],
  ['message NUL', '{"message": "a\\u0000b"}'],
  ['message lone surrogate', '{"message": "\\ud800"}'],
  ['type number', '{"type": 1}'],
  ['type empty', '{"type": ""}'],
  ['type huge', JSON.stringify({ type: 'x'.repeat(10_000) })],
  ['from number', '{"type": "t", "from": 5}'],
  ['server field timestamp', '{"type": "t", "timestamp": 1}'],
  ['session_id number', '{"message": "hi", "type": "t", "session_id": 123}'],
  ['session_id short', '{"message": "hi", "type": "t", "session_id": "short"}'],
  ['session_id with spaces', '{"message": "hi", "type": "t", "session_id": "a b c d e f g h i j k l m"}'],
  ['__proto__ key', '{"__proto__": {"polluted": true}, "message": "hi", "type": "t"}'],
  ['constructor key', '{"constructor": {"prototype": {"x": 1}}, "message": "hi", "type": "t"}'],
  ['duplicate keys', '{"message": "a", "message": "b", "type": "t", "type": "u"}'],
  ['BOM first', '\ufeff{"message": "hi", "type": "t"}'],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['deeply nested arrays (100k)', deep(100_000)],
  ['nested past the depth limit', deepObject(200)],
  ['nested within the depth limit', deepObject(40)],
  ['huge (2 MiB)', JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024), type: 't' })],
  ['many keys', JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])))],
  ['huge number', '{"message": "hi", "type": "t", "data": 1e400}'],
];

/** Content types and encodings sent with an otherwise valid body. */
const CONTENT_TYPES: Array<[string, Record<string, string>]> = [
  ['no Content-Type', {}],
  ['text/plain', { 'Content-Type': 'text/plain' }],
  ['form', { 'Content-Type': 'application/x-www-form-urlencoded' }],
  ['multipart', { 'Content-Type': 'multipart/form-data; boundary=x' }],
  ['latin1 charset', { 'Content-Type': 'application/json; charset=latin1' }],
  ['utf-16 charset', { 'Content-Type': 'application/json; charset=utf-16' }],
  ['bogus charset', { 'Content-Type': 'application/json; charset=klingon' }],
  ['quoted utf-8', { 'Content-Type': 'application/json; charset="utf-8"' }],
  ['upper case', { 'Content-Type': 'APPLICATION/JSON' }],
  ['+json', { 'Content-Type': 'application/vnd.api+json' }],
  ['malformed', { 'Content-Type': 'application/json, text/plain;;' }],
  ['br encoding', { 'Content-Type': 'application/json', 'Content-Encoding': 'br' }],
  ['bogus encoding', { 'Content-Type': 'application/json', 'Content-Encoding': 'zip' }],
  ['gzip header, plain body', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }],
];

const ACCEPTS = ['', '*/*', 'text/html', 'application/xml', 'image/*', 'text/event-stream;q=0', 'application/json;q=0', 'garbage;;;q=x', 'text/event-stream, application/json', 'text/*'];
const QUERIES = ['since=1&since=2', 'limit=1&limit=2', `session_id=${SESSION}&session_id=${SESSION}x`, 'since=-1', 'since=1e3', 'since=99999999999999999999', 'limit=0', 'limit=abc', 'since[]=1', 'since=%ZZ', 'session_id=', 'session_id=%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00', `limit=${'9'.repeat(500)}`];

describe.each(['global', 'session'] as const)('issue 6, item 1 — one error shape on every module route (news scope %s)', (scope) => {
  const agent = useSampleAgent({ bench: true, newsScope: scope });
  const session: Record<string, string> = scope === 'session' ? { 'Restap-Session-Id': SESSION } : {};

  const send = (req: RawRequest) => rawRequest(agent.url, req);
  const expectContract = async (req: RawRequest): Promise<number> => {
    const answer = await send(req);
    expect({ request: `${req.method} ${req.path}`, violation: contractViolation(answer) }).toEqual({ request: `${req.method} ${req.path}`, violation: undefined });
    return answer.status;
  };

  it.each(BODIES)('POST /talk and POST /news with a body that is %s: never 5xx, never HTML, always the shape', async (_name, body) => {
    for (const path of ['/talk', '/news']) {
      await expectContract({ method: 'POST', path, headers: { ...json, ...session }, body });
      await expectContract({ method: 'POST', path, headers: { ...json, ...session, Accept: 'text/event-stream' }, body });
    }
  });

  it('a body nested past limits.maxJsonDepth is 400 invalid_request, a valid one within it is stored', async () => {
    const tooDeep = await send({ method: 'POST', path: '/news', headers: { ...json, ...session }, body: deepObject(200) });
    expect([tooDeep.status, JSON.parse(tooDeep.text).error]).toEqual([400, 'invalid_request']);
    const within = await send({ method: 'POST', path: '/news', headers: { ...json, ...session }, body: deepObject(40) });
    expect(within.status).toBe(200);
    const huge = await send({ method: 'POST', path: '/talk', headers: json, body: JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) }) });
    expect([huge.status, JSON.parse(huge.text).error]).toEqual([413, 'payload_too_large']);
  });

  // A capability's own route is the host's controller behind the host's ValidationPipe: class-transformer
  // recurses through the body and overflowed the stack (500) on a body a few thousand levels deep.
  it.each(BODIES)('POST /text/echo (a capability route) with a body that is %s: never 5xx, never HTML, always the shape', async (_name, body) => {
    await expectContract({ method: 'POST', path: '/text/echo', headers: json, body });
  });

  it('a capability route refuses a body nested past limits.maxJsonDepth with 400 invalid_request before the host\'s pipes; within it, it answers', async () => {
    const nested = (n: number): string => `{"text":"hi","extra":${'['.repeat(n)}${']'.repeat(n)}}`;
    for (const levels of [64, 1_500, 5_000]) {
      const answer = await send({ method: 'POST', path: '/text/echo', headers: json, body: nested(levels) });
      expect({ levels, status: answer.status, error: JSON.parse(answer.text).error }).toEqual({ levels, status: 400, error: 'invalid_request' });
    }
    const within = await send({ method: 'POST', path: '/text/echo', headers: json, body: nested(40) });
    expect([within.status, JSON.parse(within.text).echoed_text]).toEqual([200, 'hi']);
  });

  it.each(CONTENT_TYPES)('POST with %s: 2xx or an error in the shape (415 for what is not UTF-8 JSON)', async (_name, headers) => {
    for (const path of ['/talk', '/news']) {
      const status = await expectContract({ method: 'POST', path, headers: { ...headers, ...session }, body: '{"message":"hi","type":"t"}' });
      expect(status).not.toBe(500);
    }
  });

  it('a gzip-encoded JSON body is read; a non-JSON type is 415 unsupported_media_type', async () => {
    const gz = await send({ method: 'POST', path: '/news', headers: { ...json, ...session, 'Content-Encoding': 'gzip' }, body: gzipSync('{"type":"t"}') });
    expect(gz.status).toBe(200);
    const plain = await send({ method: 'POST', path: '/news', headers: { 'Content-Type': 'text/plain', ...session }, body: '{"type":"t"}' });
    expect([plain.status, JSON.parse(plain.text).error]).toEqual([415, 'unsupported_media_type']);
  });

  it.each(ACCEPTS)('Accept %j on every route: never 5xx, never HTML, always the shape', async (accept) => {
    const headers = { ...session, Accept: accept };
    await expectContract({ method: 'GET', path: '/.well-known/restap.json', headers });
    await expectContract({ method: 'GET', path: '/news', headers });
    await expectContract({ method: 'POST', path: '/news', headers: { ...headers, ...json }, body: '{"type":"t"}' });
    await expectContract({ method: 'POST', path: '/talk', headers: { ...headers, ...json }, body: '{"message":"hi"}' });
  });

  it.each(QUERIES)('GET /news?%s (duplicate and malformed query parameters) is answered in the shape', async (query) => {
    const status = await expectContract({ method: 'GET', path: `/news?${query}`, headers: session });
    expect(status).toBeLessThan(500);
  });

  it('wrong methods on /talk and /news are 405 method_not_allowed with Allow; the catalog too', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/talk', 'POST'], ['PUT', '/talk', 'POST'], ['DELETE', '/talk', 'POST'], ['PATCH', '/talk', 'POST'],
      ['PUT', '/news', 'GET, HEAD, POST'], ['DELETE', '/news', 'GET, HEAD, POST'], ['PATCH', '/news', 'GET, HEAD, POST'],
      ['POST', '/.well-known/restap.json', 'GET, HEAD'], ['DELETE', '/.well-known/restap.json', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await send({ method, path, headers: { ...json, ...session }, body: method === 'GET' ? undefined : '{}' });
      expect({ method, path, status: answer.status, allow: answer.headers.allow, error: JSON.parse(answer.text).error }).toEqual({ method, path, status: 405, allow, error: 'method_not_allowed' });
    }
    const options = await send({ method: 'OPTIONS', path: '/talk' });
    expect([options.status, options.headers.allow]).toEqual([204, 'POST, OPTIONS']);
  });

  it('unknown paths under the module routes are 404 not_found in the shape; the host keeps its own 404 elsewhere', async () => {
    for (const path of ['/talk/extra', '/news/123', '/news/x/y', '/.well-known/restap.json/more']) {
      const answer = await send({ method: 'GET', path, headers: session });
      expect({ path, status: answer.status, body: JSON.parse(answer.text) }).toMatchObject({ path, status: 404, body: { error: 'not_found' } });
    }
    const host = await send({ method: 'GET', path: '/not-a-restap-path' });
    expect(host.status).toBe(404);
  });
});
