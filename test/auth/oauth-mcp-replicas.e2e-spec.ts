import type { NestExpressApplication } from '@nestjs/platform-express';
import { createSampleApp } from '../../apps/sample-agent/src/bootstrap';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../support/oidc-provider';
import { freePort } from '../support/free-port';
import { MCP_HEADERS, sessionClient } from '../support/mcp-session-client';

jest.setTimeout(120_000);

/** The JSON-RPC error of an SSE or JSON body. */
async function rpcErrorOf(res: Response): Promise<{ code: number; message: string } | undefined> {
  const text = await res.text();
  const data = res.headers.get('content-type')?.includes('text/event-stream') ? text.split('\n').find((l) => l.startsWith('data: '))!.slice(6) : text;
  return (JSON.parse(data) as { error?: { code: number; message: string } }).error;
}

/**
 * Issue 34, gap 3: OAuth beside the MCP door's stateful sessions (`mcp.sessions`) on two replicas
 * of one agent sharing one PostgreSQL, reached directly (no sticky routing). A session opened on A
 * is rebuilt on B from storage for its owner (the issuer, subject and client of the token that
 * opened it), whatever token of that owner comes; another subject meets the unknown session's 404
 * on either replica, before B rebuilds anything and after.
 */
describe('OAuth 2.1 with MCP sessions on two replicas (issue 34 gap 3: one PostgreSQL, the owner follows the session)', () => {
  let as: LocalAuthorizationServer;
  let shared: ReplicaDatabase;
  const apps: NestExpressApplication[] = [];
  let resource: string;
  let a: string;
  let b: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    shared = await openReplicaDatabase();
    const ports = [await freePort(), await freePort()];
    // One agent, one public URL (its audience); each replica listens on its own port.
    resource = `http://127.0.0.1:${ports[0]}`;
    for (const port of ports) {
      const app = await createSampleApp({ database: { url: shared.url }, newsScope: 'global', mcpSessions: true, oauth: { issuer: as.issuer, audience: resource } }, { logger: false });
      await app.listen(port, '127.0.0.1');
      apps.push(app);
    }
    [a, b] = ports.map((port) => `http://127.0.0.1:${port}/mcp`);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await shared?.close();
    await as?.stop();
  });

  const post = (url: string, token: string, body: unknown, sessionId: string) =>
    fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-session-id': sessionId }, body: JSON.stringify(body) });

  it('a session opened on A is served on B to the same subject (another token of it) and refused 404 to another subject there, before and after B rebuilt it; the owner goes on on A', async () => {
    const opening = await as.token('agent-client', resource, 'text:echo text:reverse');
    const onA = await sessionClient(a, opening);
    const sessionId = onA.transport.sessionId as string;
    expect((await onA.client.listTools()).tools.map((t) => t.name)).toContain('text_reverse');

    // Another subject on B, which does not hold the session yet: refused before anything is rebuilt.
    const other = await as.token('echo-client', resource, 'text:echo');
    const early = await post(b, other, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, sessionId);
    expect(early.status).toBe(404);
    expect(await rpcErrorOf(early)).toMatchObject({ code: -32001, message: 'Session not found' });

    // The owner on B with a new token (fewer scopes): B rebuilds the session and serves it, judged per this token.
    const later = await as.token('agent-client', resource, 'text:echo');
    const onB = await sessionClient(b, later, sessionId);
    const listedOnB = (await onB.client.listTools()).tools.map((t) => t.name);
    expect(listedOnB).toContain('text_echo');
    expect(listedOnB).not.toContain('text_reverse');
    const echoed = (await onB.client.callTool({ name: 'text_echo', arguments: { text: 'on B' } })) as { isError?: boolean; structuredContent?: unknown };
    expect(echoed.isError).toBeFalsy();
    expect(JSON.stringify(echoed.structuredContent)).toContain('on B');
    // Its GET stream too.
    const stream = await fetch(b, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId, authorization: `Bearer ${later}` } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await stream.body?.cancel();

    // Another subject on B now that B holds it: still 404, on POST, GET and DELETE.
    const held = await post(b, other, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, sessionId);
    expect(held.status).toBe(404);
    expect(await rpcErrorOf(held)).toMatchObject({ code: -32001 });
    const get = await fetch(b, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId, authorization: `Bearer ${other}` } });
    expect(get.status).toBe(404);
    await get.body?.cancel();
    const del = await fetch(b, { method: 'DELETE', headers: { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId, authorization: `Bearer ${other}` } });
    expect(del.status).toBe(404);
    await del.body?.cancel();

    // The owner goes on on A with the token that opened it.
    expect((await onA.client.listTools()).tools.map((t) => t.name)).toContain('text_reverse');

    // The owner ends it on B: A no longer serves it.
    await onB.transport.terminateSession();
    const gone = await post(a, opening, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, sessionId);
    expect(gone.status).toBe(404);
    await gone.body?.cancel();
    await onA.client.close().catch(() => undefined);
    await onB.client.close().catch(() => undefined);
  });
});
