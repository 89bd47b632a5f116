import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import type { Pool, PoolClient } from 'pg';
import { CheckoutWatchdog } from '../../apps/sample-agent/src/database/checkout-watchdog';
import { startSample, type RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { rawRequest } from './support/raw-http';

// The sample bounds the wait for a connection (SERVER_TIMEOUTS.connectionTimeoutMillis, 2 s) with one
// CheckoutWatchdog sweep for the pool instead of node-postgres' timer per checkout.
jest.setTimeout(60_000);

const describeIfServer = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/** A server that accepts connections and never says a word: a PostgreSQL that does not answer. */
async function startMute(): Promise<{ url: string; open: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.resume(); // read (and drop) what comes, so the client's FIN is seen
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `postgres://postgres@127.0.0.1:${(server.address() as AddressInfo).port}/postgres`,
    open: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describeIfServer('the pool\'s connection bound, kept by one sweep (CheckoutWatchdog)', () => {
  it('a checkout of an exhausted pool fails within the bound with node-postgres\' own error; the connection freed later goes back to the pool', async () => {
    const PoolClass = new CheckoutWatchdog(400, 100).poolClass();
    const pool: Pool = new PoolClass({ connectionString: process.env.TEST_DATABASE_URL, max: 1 });
    try {
      const held: PoolClient = await pool.connect();
      const started = Date.now();
      const error = await pool.connect().then(() => undefined, (e: Error) => e);
      const ms = Date.now() - started;
      expect(error?.message).toBe('timeout exceeded when trying to connect');
      expect(ms).toBeGreaterThanOrEqual(400);
      expect(ms).toBeLessThan(1_500);
      held.release();
      // The failed checkout's place in the pool's queue took the freed connection and handed it straight back.
      const again = await pool.connect();
      expect((await again.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      again.release();
      expect({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }).toEqual({ total: 1, idle: 1, waiting: 0 });
    } finally {
      await pool.end();
    }
  });

  it('a new connection to a server that never answers is destroyed at the bound and its checkout fails', async () => {
    const mute = await startMute();
    const PoolClass = new CheckoutWatchdog(400, 100).poolClass();
    const pool: Pool = new PoolClass({ connectionString: mute.url, max: 1 });
    pool.on('error', () => undefined);
    try {
      const started = Date.now();
      const error = await pool.connect().then(() => undefined, (e: Error) => e);
      expect(error?.message).toMatch(/timeout exceeded when trying to connect|Connection terminated/);
      expect(Date.now() - started).toBeLessThan(1_500);
      const deadline = Date.now() + 2_000;
      while (mute.open() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(mute.open()).toBe(0);
    } finally {
      await pool.end().catch(() => undefined);
      await mute.close();
    }
  });

  describe('in the sample: every connection taken, a /talk turn answers 503 storage_unavailable within the bound, then the pool recovers', () => {
    let db: TestDatabase;
    let agent: RunningApp;
    const size = process.env.DATABASE_POOL_SIZE;

    beforeAll(async () => {
      db = await createTestDatabase();
      process.env.DATABASE_POOL_SIZE = '1';
      agent = await startSample(db.target);
    });
    afterAll(async () => {
      if (size === undefined) delete process.env.DATABASE_POOL_SIZE;
      else process.env.DATABASE_POOL_SIZE = size;
      await agent?.close();
      await db?.drop();
    });

    it('503 with Retry-After in about 2 s, and 200 once the connection is back', async () => {
      const pool = (agent.app.get(DataSource).driver as unknown as { master: Pool }).master;
      const held = await pool.connect();
      let answer;
      try {
        answer = await rawRequest(agent.url, { method: 'POST', path: '/talk', headers: { 'Content-Type': 'application/json' }, body: '{"message":"hi"}', timeoutMs: 10_000 });
      } finally {
        held.release();
      }
      expect({ status: answer.status, body: JSON.parse(answer.text), retryAfter: answer.headers['retry-after'] }).toEqual({
        status: 503, body: { error: 'storage_unavailable', message: expect.any(String) }, retryAfter: '1',
      });
      expect(answer.ms).toBeGreaterThanOrEqual(2_000);
      expect(answer.ms).toBeLessThan(4_000);
      const after = await rawRequest(agent.url, { method: 'POST', path: '/talk', headers: { 'Content-Type': 'application/json' }, body: '{"message":"hi"}', timeoutMs: 10_000 });
      expect(after.status).toBe(200);
    });
  });
});
