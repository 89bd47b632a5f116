import { ARRAY_OUTPUT_KEY, structuredSchema, toToolResult } from './mcp-capability.tools';
import type { InvocationResult } from '../../core/invoker/invocation-result';

// Issue 38, item 9: array outputs are wrapped as {items: […]} in outputSchema/structuredContent
// (MCP requires an object) instead of being dropped.
describe('MCP tool outputs (issue 38, item 9)', () => {
  const item = { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] };

  it('an object output schema is kept as it is', () => {
    expect(structuredSchema(item)).toBe(item);
  });

  it('an array output schema becomes {items: <the array>}, its $defs kept at the root where its $refs point', () => {
    const array = { type: 'array', items: { $ref: '#/$defs/Order' }, $defs: { Order: item } };
    expect(structuredSchema(array)).toEqual({
      type: 'object',
      properties: { [ARRAY_OUTPUT_KEY]: { type: 'array', items: { $ref: '#/$defs/Order' } } },
      required: [ARRAY_OUTPUT_KEY],
      $defs: { Order: item },
    });
  });

  it('a scalar output schema gives no outputSchema (the answer is text only)', () => {
    expect(structuredSchema({ type: 'string' })).toBeUndefined();
    expect(structuredSchema(undefined)).toBeUndefined();
  });

  it('an array answer is structuredContent {items}, and still the JSON text', () => {
    const result = toToolResult({ ok: true, status: 200, body: [{ id: 1 }, { id: 2 }] } as InvocationResult, 'wrapped');
    expect(result.structuredContent).toEqual({ items: [{ id: 1 }, { id: 2 }] });
    expect(result.content).toEqual([{ type: 'text', text: '[{"id":1},{"id":2}]' }]);
  });

  it('an object answer is structuredContent itself; a tool without an output schema gets none', () => {
    expect(toToolResult({ ok: true, status: 200, body: { id: 1 } } as InvocationResult, 'object').structuredContent).toEqual({ id: 1 });
    expect(toToolResult({ ok: true, status: 200, body: { id: 1 } } as InvocationResult, undefined).structuredContent).toBeUndefined();
  });
});
