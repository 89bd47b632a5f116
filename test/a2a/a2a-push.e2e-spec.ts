import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';

// Issue 38, item 3: push notifications — configs in PostgreSQL, delivery by the SDK's sender from
// whichever replica runs the task, with the config's token/authentication, retried, SSRF-checked.
jest.setTimeout(120_000);

const V1 = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const message = (textValue = 'hello') => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: textValue }] });

interface Delivery {
  headers: IncomingHttpHeaders;
  body: { task?: { id: string; status: { state: string } }; statusUpdate?: { taskId: string; status: { state: string } } };
}

/** A webhook receiver on loopback: records each POST; answers `failFirst` times 500 before 200. */
async function startWebhook(failFirst = 0): Promise<{ url: string; deliveries: Delivery[]; attempts: () => number; close(): Promise<void> }> {
  const deliveries: Delivery[] = [];
  let attempts = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      attempts++;
      if (attempts <= failFirst) {
        res.writeHead(500).end();
        return;
      }
      deliveries.push({ headers: req.headers, body: JSON.parse(raw) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, deliveries, attempts: () => attempts, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The state a delivery reports (a whole task, or a status update). */
const stateOf = (d: Delivery) => d.body.task?.status.state ?? d.body.statusUpdate?.status.state;

async function until<T>(read: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

async function call(base: string, method: string, params: unknown) {
  const res = await fetch(`${base}/a2a`, { method: 'POST', headers: V1, body: rpc(method, params) });
  return (await res.json()) as { result?: Record<string, unknown> & { task?: { id: string } }; error?: { code: number; message: string } };
}

describe('issue 38, item 3: push notifications across two replicas on one database', () => {
  let db: ReplicaDatabase | undefined;
  let llm: FakeLlm;
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    db = await openReplicaDatabase();
    llm = await startFakeLlm({ reply: 'one two three four five six seven eight' });
    const config = { llm: { baseUrl: llm.baseUrl, model: 'test-model' }, pushAllowHosts: ['127.0.0.1'] };
    a = await startSample({ url: db.url }, config);
    b = await startSample({ url: db.url }, config);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await llm?.close();
    await db?.close();
  });

  it('the card says pushNotifications: true', async () => {
    const card = await (await fetch(`${a.url}/.well-known/agent-card.json`, { headers: V1 })).json();
    expect(card.capabilities.pushNotifications).toBe(true);
  });

  it('a config given with SendMessage: its webhook receives the task\'s final state, with the config\'s token (X-A2A-Notification-Token)', async () => {
    const hook = await startWebhook();
    try {
      const token = `tok-${randomUUID()}`;
      const sent = await call(a.url, 'SendMessage', { message: message(), configuration: { taskPushNotificationConfig: { url: hook.url, token } } });
      const taskId = sent.result?.task?.id as string;
      expect(taskId).toBeDefined();
      const final = await until(() => hook.deliveries.find((d) => stateOf(d) === 'TASK_STATE_COMPLETED'));
      expect(final.headers['x-a2a-notification-token']).toBe(token);
      expect(final.headers['content-type']).toMatch(/application\/a2a\+json/);
      expect(final.body.task?.id ?? final.body.statusUpdate?.taskId).toBe(taskId);
    } finally {
      await hook.close();
    }
  });

  it('CreateTaskPushNotificationConfig on B for a task A runs: A delivers the final state, with the config\'s authentication as Authorization; Get/List/Delete on either replica', async () => {
    llm.configure({ chunkDelayMs: 150 });
    const hook = await startWebhook();
    try {
      // A long turn on A, answered at once (returnImmediately): the task is still working.
      const sent = await call(a.url, 'SendMessage', { message: message('slow please'), configuration: { returnImmediately: true } });
      const taskId = sent.result?.task?.id as string;
      expect(taskId).toBeDefined();
      const created = await call(b.url, 'CreateTaskPushNotificationConfig', { taskId, url: hook.url, authentication: { scheme: 'Bearer', credentials: 'hook-secret' } });
      expect(created.error).toBeUndefined();
      const configId = created.result?.id as string;
      expect(configId).toEqual(expect.any(String));
      expect((await call(a.url, 'GetTaskPushNotificationConfig', { taskId, id: configId })).result).toMatchObject({ id: configId, url: hook.url });
      expect((await call(b.url, 'ListTaskPushNotificationConfigs', { taskId })).result?.configs).toEqual([expect.objectContaining({ id: configId, url: hook.url })]);

      const final = await until(() => hook.deliveries.find((d) => stateOf(d) === 'TASK_STATE_COMPLETED'), 30_000);
      expect(final.headers.authorization).toBe('Bearer hook-secret');

      expect((await call(a.url, 'DeleteTaskPushNotificationConfig', { taskId, id: configId })).error).toBeUndefined();
      expect((await call(b.url, 'ListTaskPushNotificationConfigs', { taskId })).result?.configs ?? []).toEqual([]);
    } finally {
      llm.configure({ chunkDelayMs: 0 });
      await hook.close();
    }
  });

  it('a failing webhook is retried with backoff until it answers 2xx (at least once)', async () => {
    const hook = await startWebhook(2);
    try {
      await call(a.url, 'SendMessage', { message: message(), configuration: { taskPushNotificationConfig: { url: hook.url, token: 't' } } });
      await until(() => hook.deliveries.find((d) => stateOf(d) === 'TASK_STATE_COMPLETED'), 20_000);
      expect(hook.attempts()).toBeGreaterThanOrEqual(3);
    } finally {
      await hook.close();
    }
  });

  it('over HTTP+JSON too: POST /a2a/rest/tasks/{id}/pushNotificationConfigs stores a config the JSON-RPC binding lists', async () => {
    const sent = await call(a.url, 'SendMessage', { message: message() });
    const taskId = sent.result?.task?.id as string;
    const res = await fetch(`${b.url}/a2a/rest/tasks/${taskId}/pushNotificationConfigs`, { method: 'POST', headers: V1, body: JSON.stringify({ taskId, url: 'http://127.0.0.1:9/hook', token: 'x' }) });
    expect(res.status).toBe(201);
    const created = await res.json();
    expect((await call(a.url, 'ListTaskPushNotificationConfigs', { taskId })).result?.configs).toEqual([expect.objectContaining({ id: created.id })]);
  });
});

describe('issue 38, item 3: webhook URLs are checked against SSRF unless their host is allowed', () => {
  let db: TestDatabase;
  let app: RunningApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startSample(db.target, {});
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it.each(['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/x', 'http://[::1]/x', 'ftp://example.com/x'])(
    'a config to %s is refused -32602 (no RESTAP_A2A_PUSH_ALLOW_HOSTS), and nothing is stored',
    async (url) => {
      const sent = await call(app.url, 'SendMessage', { message: message() });
      const taskId = sent.result?.task?.id as string;
      const created = await call(app.url, 'CreateTaskPushNotificationConfig', { taskId, url, token: 'x' });
      expect(created.error?.code).toBe(-32602);
      expect((await call(app.url, 'ListTaskPushNotificationConfigs', { taskId })).result?.configs ?? []).toEqual([]);
    },
  );

  it('SendMessage with a loopback webhook is refused before anything runs', async () => {
    const sent = await call(app.url, 'SendMessage', { message: message(), configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1:1/hook' } } });
    expect(sent.error?.code).toBe(-32602);
  });
});
