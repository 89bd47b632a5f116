import type { Request, Response } from 'express';
import type { Attributes, Context } from '@opentelemetry/api';
import { ATTR } from '../../core/telemetry/telemetry.names';
import { openDoorSpan, type DoorSpanOf } from '../../core/telemetry/door-span.telemetry';

/** A method name fit for a span name and attribute: what a client sends is bounded first. */
const NAME = /^[A-Za-z0-9_./-]{1,64}$/;

/**
 * The server span of one A2A JSON-RPC request, named after its method (`SendMessage`,
 * `GetTask`…) with `rpc.system=jsonrpc`, `rpc.method` and `jsonrpc.request.id`, continuing the
 * trace context the client put in the request's or the message's `metadata` (`traceparent`), or
 * else in its `traceparent` header. Message parts, ids of tasks and contexts are never recorded.
 */
export function a2aDoorSpan(req: Request, res: Response, path: string): Context | undefined {
  return openDoorSpan(req, res, describeA2aRequest, path);
}

/** The span's name, attributes and trace carrier, read from the request (only while tracing is on). */
function describeA2aRequest(req: Request, path: string): DoorSpanOf {
  const body = req.method === 'POST' ? (req.body as { id?: unknown; method?: unknown; params?: { metadata?: unknown; message?: { metadata?: unknown } } } | undefined) : undefined;
  const method = typeof body?.method === 'string' && NAME.test(body.method) ? body.method : undefined;
  const attributes: Attributes = { [ATTR.restapDoor]: 'a2a', [ATTR.httpRequestMethod]: req.method, [ATTR.httpRoute]: path };
  if (!method) return { name: `${req.method} ${path}`, attributes };
  attributes[ATTR.rpcSystem] = 'jsonrpc';
  attributes[ATTR.rpcMethod] = method;
  const id = body?.id;
  if (typeof id === 'number' || (typeof id === 'string' && id.length <= 64)) attributes[ATTR.jsonrpcRequestId] = String(id);
  const carrier = [body?.params?.metadata, body?.params?.message?.metadata].find(
    (m): m is Record<string, unknown> => !!m && typeof m === 'object' && !Array.isArray(m) && typeof (m as { traceparent?: unknown }).traceparent === 'string',
  );
  return { name: method, attributes, carrier };
}
