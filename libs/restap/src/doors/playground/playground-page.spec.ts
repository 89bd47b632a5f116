// The page's pure logic (catalog check, schema validation, server-error mapping), run in Node: the
// browser modules are plain ES modules without DOM access at import time.
type Finding = { level: string; where: string; message: string };
type FieldMessage = { path: string; message: string };
/* eslint-disable @typescript-eslint/no-require-imports -- untyped browser modules, compiled by Jest's swc like the rest */
const { checkCatalog } = require('./assets/catalog-check.js') as { checkCatalog: (catalog: unknown) => Finding[] };
const { validate } = require('./assets/schema-form.js') as { validate: (schema: object, root: object, value: unknown) => FieldMessage[] };
const { serverErrors, toolNameOf } = require('./assets/capabilities.js') as { serverErrors: (body: unknown) => FieldMessage[]; toolNameOf: (id: string) => string };
/* eslint-enable @typescript-eslint/no-require-imports */

const talk = { id: 'talk', title: 'Talk', method: 'POST', endpoint: '/talk', streaming: { supported: true, transport: 'sse', events: ['message.start', 'message.delta', 'message.end', 'error', 'done'] }, output_formats: ['application/json', 'text/event-stream'], sessions: { supported: true } };

describe('catalog check against the spec\'s shape', () => {
  it('a well-formed catalog has one "ok" finding', () => {
    expect(checkCatalog({ restap_version: '1.0', agent: { name: 'A' }, capabilities: [talk] })).toEqual([{ level: 'ok', where: 'catalog', message: "matches the spec's shape (1 capabilities)" }]);
  });

  it('names each problem and where it is', () => {
    const findings = checkCatalog({
      agent: {},
      capabilities: [
        { ...talk, streaming: { supported: true, events: ['message.delta'] } },
        { id: 'x.y', title: 'X', method: 'FETCH', endpoint: 'x' },
        { id: 'x.y', title: 'Again', method: 'GET', endpoint: '/x/{id}', parameters: [{ name: 'other', in: 'path', required: true, schema: {} }] },
      ],
      packages: [{ name: 'p' }],
      protocols: { mcp: { available: true } },
    });
    const text = findings.map((f) => `${f.level} ${f.where}: ${f.message}`);
    expect(text).toEqual(expect.arrayContaining([
      'error restap_version: is required',
      'error agent.name: is required',
      expect.stringMatching(/^error capabilities\[1\]\.method: must be one of/),
      'error capabilities[1].endpoint: must match ^/',
      'error packages[0].type: is required',
      'error capabilities[2].id: duplicates capabilities[1] ("x.y"): ids must be unique',
      'warning capabilities[2].parameters: path parameter "other" does not appear in /x/{id}',
      'error talk.streaming.events: a streaming server emits the required events; missing message.start, message.end, error, done',
      'warning protocols.mcp: available but no endpoint given',
    ]));
  });
});

describe('validate: the schema subset the forms produce, checked before sending', () => {
  const schema = {
    type: 'object',
    required: ['email', 'address'],
    properties: {
      email: { type: 'string', format: 'email' },
      quantity: { type: 'integer', minimum: 1, maximum: 10 },
      size: { enum: ['S', 'M'] },
      tags: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      address: { $ref: '#/$defs/Address' },
    },
    $defs: { Address: { type: 'object', required: ['city'], properties: { city: { type: 'string', minLength: 1 }, zip: { type: 'string', pattern: '^\\d{5}$' } } } },
  };
  it('accepts a valid value', () => {
    expect(validate(schema, schema, { email: 'a@b.co', quantity: 3, size: 'S', tags: ['x'], address: { city: 'Oslo', zip: '01234' } })).toEqual([]);
  });
  it('reports each field by its path, nested objects and array items included', () => {
    expect(validate(schema, schema, { email: 'nope', quantity: 1.5, size: 'XL', tags: [''], address: { zip: '1' } })).toEqual([
      { path: 'email', message: 'must be a valid email' },
      { path: 'quantity', message: 'must be integer' },
      { path: 'size', message: 'must be one of "S", "M"' },
      { path: 'tags[0]', message: 'must not be empty' },
      { path: 'address.city', message: 'is required' },
      { path: 'address.zip', message: 'must match ^\\d{5}$' },
    ]);
    expect(validate(schema, schema, {})).toEqual([{ path: 'email', message: 'is required' }, { path: 'address', message: 'is required' }]);
  });
});

describe("server errors mapped back to fields", () => {
  it("splits the ValidationPipe's 'field: reason; other: reason' message", () => {
    expect(serverErrors({ error: 'invalid_request', message: 'note: note should not contain a forbidden string; address.city: city should not be empty' })).toEqual([
      { path: 'note', message: 'note should not contain a forbidden string' },
      { path: 'address.city', message: 'city should not be empty' },
    ]);
  });
  it('keeps a message naming no field whole', () => {
    expect(serverErrors({ error: 'unauthorized', message: 'Send the API key as "Authorization: Bearer <key>".' })).toEqual([{ path: '', message: 'Send the API key as "Authorization: Bearer <key>".' }]);
  });
  it('MCP tool names map dots to underscores', () => {
    expect(toolNameOf('text.reverse')).toBe('text_reverse');
  });
});
