import type { Request, Response } from 'express';
import type { Attributes, Context } from '@opentelemetry/api';
import { ATTR } from '../../core/telemetry/telemetry.names';
import { openDoorSpan, type DoorSpanOf } from '../../core/telemetry/door-span.telemetry';

/** A method or tool name fit for a span name and attribute: what a client sends is bounded first. */
const NAME = /^[A-Za-z0-9_./-]{1,64}$/;

/** Methods whose `params.name` is the span's target (MCP semconv: `{mcp.method.name} {target}`). */
const NAMED_TARGET = new Set(['tools/call', 'prompts/get']);

/**
 * The server span of one MCP request (MCP semantic conventions): `tools/call text_reverse` with
 * `mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id` and `mcp.protocol.version`,
 * continuing the trace context the client put in `params._meta` (SEP-414) or else in its
 * `traceparent` header. Arguments, resource URIs and session ids are never recorded.
 */
export function mcpDoorSpan(req: Request, res: Response, path: string): Context | undefined {
  return openDoorSpan(req, res, describeMcpRequest, path);
}

/** The span's name, attributes and trace carrier, read from the request (only while tracing is on). */
function describeMcpRequest(req: Request, path: string): DoorSpanOf {
  const message = req.method === 'POST' ? (req.body as { id?: unknown; method?: unknown; params?: { name?: unknown; _meta?: unknown } } | undefined) : undefined;
  const method = typeof message?.method === 'string' && NAME.test(message.method) ? message.method : undefined;
  const attributes: Attributes = { [ATTR.restapDoor]: 'mcp', [ATTR.httpRequestMethod]: req.method, [ATTR.httpRoute]: path };
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && NAME.test(version)) attributes[ATTR.mcpProtocolVersion] = version;
  if (!method) return { name: `${req.method} ${path}`, attributes };
  attributes[ATTR.mcpMethodName] = method;
  const id = message?.id;
  if (typeof id === 'number' || (typeof id === 'string' && id.length <= 64)) attributes[ATTR.jsonrpcRequestId] = String(id);
  const params = message?.params;
  const target = NAMED_TARGET.has(method) && typeof params?.name === 'string' && NAME.test(params.name) ? params.name : undefined;
  if (target && method === 'tools/call') {
    attributes[ATTR.genAiToolName] = target;
    attributes[ATTR.genAiOperationName] = 'execute_tool';
  }
  const meta = params?._meta;
  const carrier = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
  return { name: target ? `${method} ${target}` : method, attributes, carrier };
}
