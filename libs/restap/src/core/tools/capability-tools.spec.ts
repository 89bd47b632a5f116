import { argumentsSchema } from './capability-tools';

describe('argumentsSchema: the discovery input_schema with path and query parameters folded in', () => {
  it('adds a required path parameter and an optional query parameter beside the body properties', () => {
    const schema = argumentsSchema({
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'verbose', in: 'query', required: false, schema: { type: 'boolean' }, description: 'More detail' },
      ],
    });
    expect(schema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { text: { type: 'string' }, id: { type: 'integer' }, verbose: { type: 'boolean', description: 'More detail' } },
      required: ['text', 'id'],
    });
  });

  it('is an empty object schema for a capability without arguments (OpenAI wants an object)', () => {
    expect(argumentsSchema({})).toEqual({ type: 'object', properties: {} });
  });
});
