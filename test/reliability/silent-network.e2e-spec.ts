import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { rawRequest } from './support/raw-http';
import { postTalk } from '../fixtures/talk-sse';
import { CapturingLogger, eventually } from '../fixtures/talk-app';

// The sample bounds a reply of the server (SERVER_TIMEOUTS.query_timeout, 6 s), kept for the pool
// by one ReplyWatchdog sweep (every 500 ms) rather than a timer per statement.
jest.setTimeout(120_000);

const describeIfServer = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/** A TCP relay to PostgreSQL that can go silent: connections stay open, nothing passes either way. */
interface SilentRelay {
  url: string;
  silent: boolean;
  close(): Promise<void>;
}

async function startRelay(target: string): Promise<SilentRelay> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const relay = { silent: false } as SilentRelay;
  const server: Server = createServer((down) => {
    const up = connect(Number(upstream.port || 5432), upstream.hostname);
    for (const [from, to] of [[down, up], [up, down]] as const) {
      sockets.add(from);
      from.on('data', (chunk) => void (relay.silent || to.write(chunk)));
      from.on('error', () => to.destroy());
      from.on('close', () => void (sockets.delete(from), to.destroy()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  relay.url = url.toString();
  relay.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return relay;
}

describeIfServer('a network that goes silent mid-statement (the sample\'s reply bound)', () => {
  let db: TestDatabase;
  let relay: SilentRelay;
  let agent: RunningApp;
  const logged = new CapturingLogger();

  beforeAll(async () => {
    db = await createTestDatabase();
    relay = await startRelay(db.url as string);
    agent = await startSample({ url: relay.url }, {}, logged);
  });
  afterAll(async () => {
    relay.silent = false;
    await agent?.close();
    await relay?.close();
    await db?.drop();
  });

  it('a /talk turn whose statements get no reply answers 503 storage_unavailable within the bound, then the pool recovers by itself', async () => {
    expect((await postTalk(`${agent.url}/talk`, { message: 'before' })).status).toBe(200);
    relay.silent = true;
    const answer = await rawRequest(agent.url, { method: 'POST', path: '/talk', headers: { 'Content-Type': 'application/json' }, body: '{"message":"hi"}', timeoutMs: 20_000 });
    expect({ status: answer.status, body: JSON.parse(answer.text), retryAfter: answer.headers['retry-after'] }).toEqual({
      status: 503, body: { error: 'storage_unavailable', message: expect.any(String) }, retryAfter: '1',
    });
    expect(answer.ms).toBeLessThan(9_000);

    relay.silent = false;
    await eventually(async () => (await postTalk(`${agent.url}/talk`, { message: 'after' })).status, (status) => status === 200, 20_000);
    const unexpected = logged.errors.filter((line) => !/Connection terminated|timeout|Query read timeout|ServiceUnavailableException/i.test(line));
    expect(unexpected).toEqual([]);
  });

  it('the pool\'s connections carry no per-statement timer: a silent connection is destroyed by the sweep (Connection terminated unexpectedly), not by node-postgres\' query_timeout', async () => {
    const pool = (agent.app.get(DataSource).driver as unknown as { master: { query(text: string): Promise<unknown> } }).master;
    await pool.query('SELECT 1');
    relay.silent = true;
    const started = Date.now();
    const error = await pool.query('SELECT 1').then(() => undefined, (e: Error) => e);
    const ms = Date.now() - started;
    relay.silent = false;
    expect(error?.message).toBe('Connection terminated unexpectedly');
    expect(ms).toBeGreaterThanOrEqual(6_000);
    expect(ms).toBeLessThan(8_000);
    await eventually(() => pool.query('SELECT 1').then(() => true, () => false), (ok) => ok, 10_000);
  });
});
