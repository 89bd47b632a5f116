import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RESTAP_CATALOG_SCHEMA } from 'nestjs-restap';
import { useSampleAgent } from '../support/sample-app';

const textSchema = {
  type: 'object',
  properties: {
    text: { type: 'string', minLength: 1, maxLength: 100000, description: 'The text to process', examples: ['Hello World'] },
  },
  required: ['text'],
};
const resultProps = {
  job_id: { type: 'string', description: 'Identifier of this job', examples: ['job_3f2c0e4a9b7d'] },
  original_text: { type: 'string', description: 'The text as received' },
  // @IsISO8601 accepts a date or a date-time, and says so.
  timestamp: { oneOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }], description: 'When the job ran' },
};

describe('Discovery: GET /.well-known/restap.json (spec, "The Catalog Document")', () => {
  const agent = useSampleAgent();

  it('serves the sample catalog, equal field by field to the expected document', async () => {
    const res = await fetch(`${agent.url}/.well-known/restap.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const catalog = await res.json();
    expect(catalog.restap_version).toBe('1.0');
    expect(catalog.agent).toEqual({
      name: 'Text Analysis Agent',
      description: 'AI agent specialized in text processing and analysis',
      contact: 'agent@example.com',
    });
    const byId = Object.fromEntries(catalog.capabilities.map((c: { id: string }) => [c.id, c]));
    expect(byId['text.echo']).toEqual({
      id: 'text.echo',
      title: 'Echo text back',
      method: 'POST',
      endpoint: '/text/echo',
      description: 'Returns the input text unchanged',
      input_schema: textSchema,
      output_schema: {
        type: 'object',
        properties: { ...resultProps, echoed_text: { type: 'string', description: 'The text, unchanged' } },
        required: ['echoed_text', 'job_id', 'original_text', 'timestamp'],
      },
      content_types: ['application/json'],
    });
    expect(byId['text.reverse']).toMatchObject({
      id: 'text.reverse',
      method: 'POST',
      endpoint: '/text/reverse',
      input_schema: textSchema,
      output_schema: { properties: { reversed_text: { type: 'string' } } },
    });
    expect(catalog.protocols).toEqual({ mcp: { available: true, endpoint: '/mcp' }, a2a: { available: true, endpoint: '/a2a' }, agui: { available: true, endpoint: '/ag-ui' } });
  });

  it('validates against the catalog JSON Schema shipped in the library', async () => {
    const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(RESTAP_CATALOG_SCHEMA);
    expect(validate.errors ?? validate(catalog)).toBe(true);
  });

  it('answers the same bytes on every request with a strong ETag, and 304 on If-None-Match', async () => {
    const a = await fetch(`${agent.url}/.well-known/restap.json`);
    const b = await fetch(`${agent.url}/.well-known/restap.json`);
    const etag = a.headers.get('etag') as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(b.headers.get('etag')).toBe(etag);
    expect(Buffer.from(await a.arrayBuffer()).equals(Buffer.from(await b.arrayBuffer()))).toBe(true);
    expect(a.headers.get('cache-control')).toBe('public, max-age=60');
    const cached = await fetch(`${agent.url}/.well-known/restap.json`, { headers: { 'If-None-Match': etag } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    const stale = await fetch(`${agent.url}/.well-known/restap.json`, { headers: { 'If-None-Match': '"other"' } });
    expect(stale.status).toBe(200);
  });
});
