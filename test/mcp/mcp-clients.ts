import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** The three clients every MCP test speaks through: the 1.x SDK (2025-11-25) and the 2.x SDK, auto and pinned. */
export type ClientKind = '1.x (2025-11-25)' | '2.x auto' | '2.x pinned 2026-07-28';
export const CLIENT_KINDS: ClientKind[] = ['1.x (2025-11-25)', '2.x auto', '2.x pinned 2026-07-28'];

/** What the tests call on either SDK's Client (same method names and shapes in both lines). */
export interface AnyClient {
  listTools(): Promise<{ tools: Array<Record<string, unknown> & { name: string; inputSchema: unknown }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: string }> }>;
  listResources(): Promise<{ resources: Array<{ uri: string; name: string }> }>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

/** Progress updates of one call. */
export type OnProgress = (p: { progress: number; message?: string }) => void;

/**
 * Calls a tool with an `onprogress` callback: the 1.x client takes it as the third argument
 * (after a result schema), the 2.x client as the second.
 */
export function callWithProgress(kind: ClientKind, client: AnyClient, params: { name: string; arguments: Record<string, unknown> }, onprogress: OnProgress): Promise<Record<string, unknown>> {
  const call = client.callTool as unknown as (...args: unknown[]) => Promise<Record<string, unknown>>;
  return kind === '1.x (2025-11-25)' ? call.call(client, params, undefined, { onprogress }) : call.call(client, params, { onprogress });
}

/** Connects a client of `kind` to `url` with the given extra headers. */
export async function connectClient(kind: ClientKind, url: string, headers: Record<string, string> = {}): Promise<AnyClient> {
  const info = { name: 'restap-e2e', version: '1.0.0' };
  if (kind === '1.x (2025-11-25)') {
    const client = new LegacyClient(info);
    await client.connect(new LegacyTransport(new URL(url), { requestInit: { headers } }));
    return client as unknown as AnyClient;
  }
  const mode = kind === '2.x auto' ? ('auto' as const) : { pin: '2026-07-28' as const };
  const client = new Client(info, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client as unknown as AnyClient;
}

/** The 2.x client pinned to 2026-07-28, typed as itself (for listen()). */
export async function connectModern(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'restap-e2e', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
