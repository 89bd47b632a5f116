import { isRecord } from '../../catalog/catalog.validator';
import type { RestapCatalog } from '../../interfaces/catalog.interface';
import type { CheckContext } from '../check.context';
import { describe, parseJson, type Probe } from '../check.probe';
import type { CheckDefinition } from '../check.types';

/** The MCP revision the probe speaks: the newest of the 2025 era, which today's hosts speak. */
const MCP_PROTOCOL_VERSION = '2025-11-25';
const ACCEPT_MCP = 'application/json, text/event-stream';

function mcpEndpoint(catalog: RestapCatalog): string | undefined {
  const entry = catalog.protocols?.mcp;
  return entry?.available === true && typeof entry.endpoint === 'string' && entry.endpoint ? entry.endpoint : undefined;
}

/** The JSON-RPC response of id `id` in a probe, whether the server answered with JSON or an SSE stream. */
function rpcResponse(probe: Probe, id: number): Record<string, unknown> | undefined {
  const messages = probe.frames ? probe.frames.map((f) => parseJson(f.data)) : [probe.json];
  return messages.find((m): m is Record<string, unknown> => isRecord(m) && m.id === id && ('result' in m || 'error' in m));
}

/**
 * Capability honesty for the MCP door: an endpoint the catalog advertises must answer MCP. The
 * checker opens a session the way a 2025-era host does (`initialize`, `notifications/initialized`)
 * and lists the tools, with plain JSON-RPC over HTTP: a conformance probe judges the wire itself,
 * and restap-client stays free of MCP SDK dependencies.
 */
export const protocolsChecks: CheckDefinition[] = [
  {
    id: 'protocols.mcp-answers',
    level: 'MUST',
    group: 'protocols',
    title: 'An advertised MCP endpoint initializes and lists tools',
    spec: 'the protocols object only tells clients which integrations the agent exposes and where to reach them (Top-Level protocols Field)',
    when: 'protocols.mcp is not advertised as available with an endpoint',
    applies: (catalog) => mcpEndpoint(catalog) !== undefined,
    async run(ctx: CheckContext) {
      const endpoint = mcpEndpoint(ctx.catalog)!;
      const headers: Record<string, string> = { Accept: ACCEPT_MCP };
      const init = await ctx.request({
        method: 'POST',
        endpoint,
        headers,
        body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'restap check', version: '1' } } },
      });
      const initialized = rpcResponse(init, 1);
      ctx.expect(init.status === 200 && isRecord(initialized?.result), `initialize at ${endpoint}: expected 200 with a JSON-RPC result, got ${describe(init)}`);
      const result = initialized.result as Record<string, unknown>;
      ctx.expect(typeof result.protocolVersion === 'string' && isRecord(result.serverInfo), `initialize answered without protocolVersion/serverInfo: ${JSON.stringify(result).slice(0, 200)}`);
      const session = init.headers.get('mcp-session-id');
      Object.assign(headers, { 'MCP-Protocol-Version': result.protocolVersion as string }, session ? { 'Mcp-Session-Id': session } : {});
      await ctx.request({ method: 'POST', endpoint, headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
      const list = await ctx.request({ method: 'POST', endpoint, headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} } });
      const listed = rpcResponse(list, 2);
      const tools = isRecord(listed?.result) ? listed.result.tools : undefined;
      ctx.expect(list.status === 200 && Array.isArray(tools), `tools/list at ${endpoint}: expected 200 with result.tools, got ${describe(list)}`);
      return `MCP ${result.protocolVersion as string}: ${(tools as unknown[]).length} tools`;
    },
  },
];
