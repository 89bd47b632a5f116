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
});
