import { fromJsonSchema, requireScopes, type CallToolResult, type JsonSchemaType, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { JsonSchema } from '../../interfaces/catalog.interface';
import type { CapabilityTools, ToolDefinition } from '../../core/tools/capability-tools';
import type { InvocationResult } from '../../core/invoker/invocation-result';
import { callOf } from './mcp-call.context';

/** One registration on a request's server, built once per process: configs, schemas and handlers are shared by every server. */
export interface McpRegistration {
  /** The tool it registers, if it is a tool. */
  readonly tool?: string;
  /** The OAuth scopes calling it needs (`auth.oauth`): a caller without them does not see it listed. */
  readonly scopes?: readonly string[];
  readonly register: (server: McpServer) => void;
}

/** `_meta` key naming the capability behind a tool (tool names cannot hold its dots everywhere). */
export const CAPABILITY_META_KEY = 'io.restap/capability';
/** `_meta` key of a failed call's error code (`invalid_request`, `unauthorized`, …) and HTTP status. */
export const ERROR_META_KEY = 'io.restap/error';

/**
 * One MCP tool per capability offered as a tool: the discovery schemas as they are (JSON Schema
 * 2020-12, `$defs`, no `$schema`), `readOnlyHint` for GET, the title, and the capability id in
 * `_meta`. A call goes through `CapabilityTools` (the invoker: the host's guards with the
 * caller's headers — the request's that carried the call, read when it runs — pipes, interceptors,
 * filters). A refusal or failure is a tool result with `isError: true` and the route's message,
 * never a JSON-RPC error and never a stack. Built once: each request's server only registers them.
 */
export function capabilityToolRegistrations(tools: CapabilityTools): McpRegistration[] {
  return tools.list().map((tool) => {
    const outputSchema = objectSchema(tool.outputSchema);
    const scopes = tools.scopesOf(tool);
    const config = {
      title: tool.title,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: fromJsonSchema<Record<string, unknown>>(tool.inputSchema as JsonSchemaType),
      ...(outputSchema ? { outputSchema: fromJsonSchema<Record<string, unknown>>(outputSchema as JsonSchemaType) } : {}),
      annotations: annotationsOf(tool),
      _meta: { [CAPABILITY_META_KEY]: tool.capabilityId },
      // A tools/call whose token lacks the scopes: the SDK answers HTTP 403 insufficient_scope with
      // the step-up challenge (MCP authorization, 2025-11-25), before the tool runs.
      ...(scopes.length ? { scopeChallenge: requireScopes(...(scopes as [string, ...string[]])) } : {}),
    };
    const structured = outputSchema !== undefined;
    const handler = async (args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> =>
      toToolResult(await tools.call(tool.name, args ?? {}, callOf(ctx).caller, ctx.mcpReq.signal), structured);
    return { tool: tool.name, ...(scopes.length ? { scopes } : {}), register: (server: McpServer) => void server.registerTool(tool.name, config, handler) };
  });
}

/** Hints only: a GET capability reads; nothing else is claimed (the host knows its side effects). */
function annotationsOf(tool: ToolDefinition): { title: string; readOnlyHint: boolean } {
  return { title: tool.title, readOnlyHint: tool.method === 'GET' };
}

/** MCP output schemas describe `structuredContent`, which is always an object. */
function objectSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  return schema && schema.type === 'object' ? schema : undefined;
}

/** A capability's answer as a tool result: the JSON as text, and as `structuredContent` when it is an object. */
export function toToolResult(result: InvocationResult, structured: boolean): CallToolResult {
  if (!result.ok) return toolError(result.message, result.error, result.status);
  const { body } = result;
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  return {
    content: [{ type: 'text', text }],
    ...(structured && isObject ? { structuredContent: body as Record<string, unknown> } : {}),
  };
}

/** A tool-level failure: the model reads the message and may retry. */
export function toolError(message: string, error: string, status?: number): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [ERROR_META_KEY]: { error, ...(status === undefined ? {} : { status }) } },
  };
}
