import type { Request, Response } from 'express';
import { fakeRequest, fakeResponse, PARENT, TRACE, useInMemoryTracing } from '../../../../../test/support/in-memory-tracing';
import { mcpDoorSpan } from './mcp-door.span';

describe('the MCP server span (issue 36, item 2: MCP semconv, traceparent from _meta per SEP-414)', () => {
  const { exporter, only } = useInMemoryTracing();

  it('MCP: the traceparent in params._meta wins over the header (SEP-414); a non-string one is ignored', () => {
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const body = (meta: unknown) => ({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'text_reverse', arguments: { text: 'secret text' }, _meta: meta } });
    const headers = { traceparent: `00-${other}-${PARENT}-01`, 'mcp-protocol-version': '2026-07-28' };
    let res = fakeResponse();
    mcpDoorSpan(fakeRequest(headers, { body: body({ traceparent: `00-${TRACE}-${PARENT}-01` }) }) as Request, res as unknown as Response, '/mcp');
    res.emit('close');
    let span = only();
    expect(span.name).toBe('tools/call text_reverse');
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'text_reverse', 'jsonrpc.request.id': '3', 'mcp.protocol.version': '2026-07-28' });
    expect(JSON.stringify(span.attributes)).not.toContain('secret text');
    exporter.reset();
    res = fakeResponse();
    mcpDoorSpan(fakeRequest(headers, { body: body({ traceparent: 42 }) }) as Request, res as unknown as Response, '/mcp');
    res.emit('close');
    span = only();
    expect(span.spanContext().traceId).toBe(other);
  });

  it('MCP: a method or tool name a client made up (too long, odd characters) names no span and no attribute', () => {
    const res = fakeResponse();
    const body = { jsonrpc: '2.0', id: 'x'.repeat(500), method: `tools/call${'x'.repeat(100)}`, params: { name: 'a b' } };
    mcpDoorSpan(fakeRequest({}, { body }) as Request, res as unknown as Response, '/mcp');
    res.emit('close');
    const span = only();
    expect(span.name).toBe('POST /mcp');
    expect(span.attributes['mcp.method.name']).toBeUndefined();
    expect(span.attributes['jsonrpc.request.id']).toBeUndefined();
    const second = fakeResponse();
    exporter.reset();
    mcpDoorSpan(fakeRequest({}, { body: { method: 'tools/call', params: { name: 'bad name!' } } }) as Request, second as unknown as Response, '/mcp');
    second.emit('close');
    expect(only()).toMatchObject({ name: 'tools/call' });
    expect(only().attributes['gen_ai.tool.name']).toBeUndefined();
  });

});
