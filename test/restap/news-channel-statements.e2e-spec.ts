import { Client } from 'pg';
import { PgNewsChannel, type PgNewsChannelEvents } from 'nestjs-restap/core/news/pg-news.channel';
import type { NewsCommitHint } from 'nestjs-restap/core/news/news-feed';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';

// Issue 41: the wake-up connection carries the hint lanes of several channels, the health check and
// the announcements. node-postgres 8 queues a query sent while another runs with a deprecation
// warning ("Calling client.query() when the client is already executing a query"), and pg 9 refuses
// it: each statement on that connection is sent once the previous one has its answer.
jest.setTimeout(60_000);

const CHANNELS = ['restap_news', 'restap_frames_t', 'restap_tasks_t'];

/** Counts, per pg Client, the queries sent while another of the same client had no answer yet. */
function watchOverlaps(): { overlaps: () => number; sent: () => number; restore: () => void } {
  const original = Client.prototype.query;
  const running = new WeakMap<object, number>();
  let overlaps = 0;
  let sent = 0;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const now = running.get(this) ?? 0;
    if (now > 0) overlaps++;
    sent++;
    running.set(this, now + 1);
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    const done = () => running.set(this, (running.get(this) ?? 1) - 1);
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(done, done);
    else done();
    return result;
  } as typeof Client.prototype.query;
  return { overlaps: () => overlaps, sent: () => sent, restore: () => void (Client.prototype.query = original) };
}

describe('the wake-up connection sends one statement at a time (issue 41)', () => {
  let db: ReplicaDatabase;
  const channels: PgNewsChannel[] = [];

  beforeAll(async () => {
    db = await openReplicaDatabase();
  });
  afterAll(async () => {
    for (const channel of channels) await channel.close();
    await db?.close();
  });

  it('hints on three channels at once, answers to a peer\'s hi and the health check never overlap on one connection, and every hint arrives', async () => {
    const heard: Array<{ channel: string; hints: NewsCommitHint[] }> = [];
    let listeningA = false;
    let listeningB = false;
    const eventsOf = (onListening: () => void, onHints?: (hints: NewsCommitHint[], channel: string) => void): PgNewsChannelEvents => ({
      listening: onListening,
      hints: (hints, channel) => onHints?.(hints, channel),
    });
    const watch = watchOverlaps();
    try {
      const a = new PgNewsChannel({ connectionString: db.url }, 'aaaaaaaa', eventsOf(() => (listeningA = true)), CHANNELS, 60_000);
      channels.push(a);
      a.start();
      while (!listeningA) await new Promise((resolve) => setTimeout(resolve, 10));
      const b = new PgNewsChannel({ connectionString: db.url }, 'bbbbbbbb', eventsOf(() => (listeningB = true), (hints, channel) => heard.push({ channel, hints })), CHANNELS, 60_000);
      channels.push(b);
      b.start(); // its `hi` on the three channels reaches A, which answers `here` on each
      while (!listeningB) await new Promise((resolve) => setTimeout(resolve, 10));
      // A's hints on every channel at once, its health check between them.
      for (let round = 0; round < 20; round++) {
        for (const channel of CHANNELS) a.send({ feed: 'global', ts: 1_000 + round }, channel);
        if (round % 5 === 0) a.ping();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      const last = () => CHANNELS.every((channel) => heard.some((h) => h.channel === channel && h.hints.some((hint) => hint.ts === 1_019)));
      for (let waited = 0; !last() && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(last()).toBe(true);
      expect(watch.sent()).toBeGreaterThan(10);
      expect(watch.overlaps()).toBe(0);
    } finally {
      watch.restore();
    }
  });
});
