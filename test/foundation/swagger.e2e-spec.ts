import { useSampleAgent } from '../support/sample-app';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

describe('The sample keeps ordinary Nest tooling: Swagger UI beside RESTAP discovery', () => {
  const agent = useSampleAgent();

  it('GET /docs answers the Swagger UI page as HTML', async () => {
    const res = await fetch(`${agent.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('swagger-ui');
  });

  it('GET /docs-json is an OpenAPI document listing POST /text/echo and /text/reverse', async () => {
    const res = await fetch(`${agent.url}/docs-json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe('Text Analysis Agent');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/text/echo', '/text/reverse']));
    expect(doc.paths['/text/echo'].post).toBeDefined();
  });

  it("Swagger's routes and the sample's own come after RESTAP's in the router, all before Nest's 404: /talk walks none of them", async () => {
    const stack = (agent.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string } }> } }).router.stack;
    const at = (path: string): number => stack.findIndex((layer) => layer.route?.path === path);
    expect(at('/talk')).toBeGreaterThan(-1);
    for (const later of ['/text/echo', '/notes', '/docs', '/docs-json']) expect(at(later)).toBeGreaterThan(at('/talk'));
    const unknown = await fetch(`${agent.url}/docs-nope`);
    expect(unknown.status).toBe(404);
    const root = await fetch(`${agent.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/playground');
  });
});

describe('issue 40 item 11: Swagger documents the error answers of /talk and /news, and the SSE content type', () => {
  const agent = useSampleAgent();
  const ERROR = { type: 'object', required: ['error', 'message'] };

  it('POST /talk: 200 as JSON or text/event-stream; 400/401/406/413/415/429/503 with the {error, message} schema', async () => {
    const doc = await (await fetch(`${agent.url}/docs-json`)).json();
    const talk = doc.paths['/talk'].post.responses;
    expect(Object.keys(talk['200'].content)).toEqual(['application/json', 'text/event-stream']);
    for (const status of ['400', '401', '406', '413', '415', '429', '502', '503', '504']) {
      expect(talk[status]?.content?.['application/json']?.schema).toMatchObject(ERROR);
    }
  });

  it('GET and POST /news: their 200 shapes and error answers (POST: 413, 415, 422)', async () => {
    const doc = await (await fetch(`${agent.url}/docs-json`)).json();
    const read = doc.paths['/news'].get.responses;
    const post = doc.paths['/news'].post.responses;
    expect(read['200'].content['application/json'].schema).toMatchObject({ required: ['items', 'timestamp'] });
    expect(post['200'].content['application/json'].schema).toMatchObject({ required: ['status', 'news_id', 'message'] });
    for (const status of ['400', '401', '429', '503']) expect(read[status].content['application/json'].schema).toMatchObject(ERROR);
    for (const status of ['400', '413', '415', '422', '429', '503']) expect(post[status].content['application/json'].schema).toMatchObject(ERROR);
  });
});
