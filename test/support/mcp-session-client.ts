import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The headers of a raw 2025-11-25 MCP request. */
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

/** A 2025-11-25 client of the official SDK (1.x) carrying `token`, in a new session, or resuming `sessionId` when given. */
export async function sessionClient(url: string, token: string, sessionId?: string): Promise<{ client: LegacyClient; transport: LegacyTransport }> {
  const client = new LegacyClient({ name: 'restap-e2e', version: '1.0.0' });
  const transport = new LegacyTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } }, ...(sessionId ? { sessionId } : {}) });
  await client.connect(transport);
  return { client, transport };
}
