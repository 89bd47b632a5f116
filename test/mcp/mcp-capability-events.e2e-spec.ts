import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema, GetTaskResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { capabilityLog, capabilityProgress } from 'nestjs-restap';
import { SyntheticRequest } from '../../libs/restap/src/core/invoker/synthetic-http';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { API_KEY } from '../a2a/a2a-support';
import { callWithProgress, CLIENT_KINDS, connectClient, type AnyClient } from './mcp-clients';

// Issue 38, item 7: "2025-era clients … cannot receive log messages or progress outside talk". A
// capability reports its own progress and log (capabilityProgress, capabilityLog, from `@Req() req`);
// the MCP door sends them as notifications/progress (MCP utilities/progress: to a request that carries
// a progressToken, progress increasing) and notifications/message (utilities/logging: at or above the
// level the client set). The sample's notes.digest reports one step per note.
jest.setTimeout(60_000);

const AUTH = { authorization: `Bearer ${API_KEY}` };
const NOTES = ['Milk and eggs', 'Call the plumber', 'Book the train'];

describe('issue 38, item 7 — a capability reports progress and logs through the MCP door', () => {
  let db: TestDatabase;
  let app: RunningApp;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startSample(db.target, { apiKey: API_KEY, notesDigestStepMs: 150, rateLimitPerMinute: 100_000, playground: false });
    for (const [k, body] of NOTES.entries()) {
      const created = await fetch(`${app.url}/notes`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ title: `Note ${k}`, body }) });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await Promise.all(opened.map((client) => client.close().catch(() => undefined)));
    await app?.close();
    await db?.drop();
  });

  it.each(CLIENT_KINDS)('%s: a call with a progressToken gets one notifications/progress per step, increasing, with its total and message', async (kind) => {
    const client: AnyClient = await connectClient(kind, `${app.url}/mcp`, AUTH);
    opened.push(client);
    const steps: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await callWithProgress(kind, client, { name: 'notes_digest', arguments: { limit: 3 } }, (p) => steps.push(p));
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ notes: 3 });
    expect(steps.map((s) => [s.progress, s.total])).toEqual([[1, 3], [2, 3], [3, 3]]);
    expect(steps.every((s) => /^Read note #\d+$/.test(s.message ?? ''))).toBe(true);
  });

  it("1.x (2025-11-25) session: logging/setLevel debug → the capability's own log messages, then the door's per-call line; at info its debug lines are not sent", async () => {
    const client = new LegacyClient({ name: 'restap-events-e2e', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: AUTH } });
    await client.connect(transport);
    opened.push(client);
    const logs: Array<{ level: string; logger?: string; data: Record<string, unknown> }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      logs.push(n.params as (typeof logs)[number]);
    });
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'notes_digest', arguments: { limit: 3 } });
    expect(logs.map((l) => [l.level, l.logger, l.data.digest ?? l.data.capability])).toEqual([
      ['info', 'restap', 'started'],
      ['debug', 'restap', 'read'],
      ['debug', 'restap', 'read'],
      ['debug', 'restap', 'read'],
      ['info', 'restap', 'done'],
      ['info', 'restap', 'notes.digest'],
    ]);
    logs.length = 0;
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'notes_digest', arguments: { limit: 3 } });
    expect(logs.map((l) => l.data.digest ?? l.data.capability)).toEqual(['started', 'done', 'notes.digest']);
    await transport.terminateSession().catch(() => undefined);
  });

  it("a task's progress becomes its statusMessage (2025-11-25 tasks/get shows how far it is), and the ended task says it answered", async () => {
    const client = new LegacyClient({ name: 'restap-events-e2e', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: AUTH } }));
    opened.push(client);
    const created = await client.request({ method: 'tools/call', params: { name: 'notes_digest', arguments: { limit: 3 } } }, CreateTaskResultSchema, { task: { ttl: 60_000 } });
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const task = await client.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, GetTaskResultSchema);
      seen.add(task.statusMessage ?? '');
      if (task.status !== 'working') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const progress = [...seen].filter((m) => /^\d\/3: Read note #\d+$/.test(m));
    expect(progress.length).toBeGreaterThan(0);
    expect([...seen].at(-1)).toBe('notes.digest answered.');
  });

  it('the same capability over plain HTTP: nothing listens, the reports cost nothing and change nothing', async () => {
    const res = await fetch(`${app.url}/notes/digest`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ limit: 3 }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ notes: 3 });
  });
});

describe('capabilityProgress / capabilityLog refuse what MCP forbids', () => {
  const request = (events?: ConstructorParameters<typeof SyntheticRequest>[0]['events']) =>
    new SyntheticRequest({ method: 'POST', url: '/x', headers: {}, params: {}, query: {}, body: {}, ...(events ? { events } : {}) });

  it('MCP utilities/progress: "The progress value MUST increase with each notification" — a report that does not grow is a RangeError', () => {
    const sent: number[] = [];
    const req = request({ progress: (p) => sent.push(p) });
    capabilityProgress(req, 1, 3);
    capabilityProgress(req, 2.5, 3);
    expect(() => capabilityProgress(req, 2.5, 3)).toThrow(RangeError);
    expect(() => capabilityProgress(req, Number.NaN)).toThrow(RangeError);
    expect(sent).toEqual([1, 2.5]);
  });

  it('a level outside RFC 5424 is a RangeError; a request no door listens to takes the reports and sends nothing', () => {
    expect(() => capabilityLog(request(), 'verbose' as never, {})).toThrow(RangeError);
    const plain = {};
    capabilityProgress(plain, 2);
    capabilityProgress(plain, 1);
    capabilityLog(plain, 'info', { ok: true });
  });
});
