import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import { Client, type ClientConfig, type Notification } from 'pg';
import type { DataSource } from 'typeorm';
import { GroupCommit } from '../../persistence/group-commit';
import type { NewsCommitHint } from './news-feed';

/** The NOTIFY channel of news commits. */
export const NEWS_CHANNEL = 'restap_news';
/** NOTIFY payloads must stay under 8000 bytes; a hint takes at most ~85. */
const MAX_PAYLOAD = 7_800;
/** Longest wait for the listener's health check before the connection is taken for dead. */
const PING_TIMEOUT_MS = 5_000;
const MAX_BACKOFF_MS = 5_000;
/**
 * Least time from one NOTIFY statement to the next. A lone hint goes out at once; under a stream
 * of appends the hints of the next few ms ride one statement. Each NOTIFY is a transaction of its
 * own, echoed back to this instance's LISTEN and delivered to every other replica's: one per
 * append batch halves the batches (BENCHMARKS.md, "Measurements behind the code").
 */
export const NOTIFY_SPACING_MS = 5;

/** A peer unheard for this many of its announcement intervals is taken for gone. */
const PEER_LIFETIMES = 3;
/** After LISTEN is in place, every hint is sent for this long (at most one announcement interval): the others' answers to `hi` arrive meanwhile. */
const ANSWERS_MS = 1_000;

/** What the channel hands back to its owner. */
export interface PgNewsChannelEvents {
  /** Hints another instance sent on `channel` (one of those the connection listens to). */
  hints(hints: NewsCommitHint[], channel: string): void;
  /**
   * Hints may have been missed: LISTEN is in place (first time or after a reconnect), or another
   * instance just connected or just learned of this one (and may have skipped hints meanwhile).
   */
  listening(): void;
}

/**
 * The connection settings of the LISTEN client: `listenUrl` when given, else those of TypeORM's own
 * pg pool (so the same host, credentials, TLS and timeouts). Undefined when the DataSource is not
 * a PostgreSQL server reached over a socket: PGlite's adapter hands the pool a ready `connection`.
 */
export function pgConfigOf(option: 'auto' | { listenUrl: string }, dataSource: DataSource | undefined): ClientConfig | undefined {
  const base = { application_name: 'restap-news-listener', keepAlive: true, connectionTimeoutMillis: 5_000 };
  if (typeof option === 'object') return { ...base, connectionString: option.listenUrl };
  if (dataSource?.options.type !== 'postgres') return undefined;
  const pool = (dataSource.driver as { master?: { options?: ClientConfig & { connection?: unknown } } }).master;
  const options = pool?.options;
  if (!options || options.connection !== undefined || options.stream !== undefined) return undefined;
  return { ...options, ...base, connectionTimeoutMillis: options.connectionTimeoutMillis || base.connectionTimeoutMillis };
}

/**
 * One dedicated `pg.Client` per instance: it LISTENs for other instances' commits and sends this
 * instance's — news commits on {@link NEWS_CHANNEL}, and on the other channels it is given the
 * other doors' wake-ups (A2A task updates), so an instance keeps one LISTEN connection whatever
 * wakes it. Hints are sent batched (one NOTIFY statement carries every hint that waited while the previous one
 * was in flight or within {@link NOTIFY_SPACING_MS} of its start, each feed once with its newest ts). It reconnects with backoff for as long as the
 * app runs; while it is down, hints are neither sent nor received and the owner's resync timer
 * covers the gap. Its session runs with `synchronous_commit = off`: a NOTIFY only announces items
 * that are already durable, so it need not wait for a WAL flush of its own.
 *
 * Hints go out only on channels some other instance listens to. Each instance announces itself on
 * each of its channels: `2 <instance> hi <ms>` once LISTEN is in place, `2 <instance> here <ms>`
 * every `announceMs` (the health check's statement) and in answer to a `hi`; one unheard for three
 * of its intervals is taken for gone. Whoever hears a `hi` re-reads (its sender could not be told
 * of anything committed before it listened). For a second after it listens, an instance sends
 * every hint (the others' answers arrive meanwhile); an instance that learns of another later
 * than that (one taken for gone, a `hi` missed while reconnecting) sends `hi`, so that one re-reads
 * what no hint was sent for. A lone instance so sends no NOTIFY per commit, and hears no echo.
 */
export class PgNewsChannel {
  private readonly logger = new Logger('Restap');
  private readonly outbox = new GroupCommit<NewsCommitHint, void>((channel, hints) => this.flush(channel, hints), 4096, { retryAlone: false });
  private client?: Client;
  private closed = false;
  private backoffMs = 100;
  private down = false;
  /** Other instances heard on each channel: instance id -> until when (performance.now()) it counts as there. */
  private readonly peers = new Map<string, Map<string, number>>();
  /** Until when (performance.now()) every hint is sent: {@link ANSWERS_MS} after LISTEN is in place. */
  private everyHintUntil = 0;
  /** The last statement sent on the connection: the next waits for it (see {@link statement}). */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: ClientConfig,
    private readonly instanceId: string,
    private readonly events: PgNewsChannelEvents,
    /** The NOTIFY channels listened to and sent on (plain identifiers). */
    private readonly channels: readonly string[] = [NEWS_CHANNEL],
    /** How often this instance announces itself ({@link ping}'s interval); peers expect it that often. */
    private readonly announceMs = 5_000,
  ) {}

  /** True while LISTEN is in place. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  start(): void {
    void this.connect();
  }

  /**
   * Queues a hint for the next NOTIFY on `channel`; dropped while the connection is down, and when no
   * other instance listens on `channel` (receivers resync: see the class comment).
   */
  send(hint: NewsCommitHint, channel: string = NEWS_CHANNEL): void {
    if (this.client && this.heard(channel)) this.outbox.submit(channel, hint).catch(() => undefined);
  }

  /** True when another instance listening on `channel` was heard within its lifetime. */
  private heard(channel: string): boolean {
    const now = performance.now();
    const peers = this.peers.get(channel);
    if (peers) {
      for (const [instance, until] of peers) {
        if (until > now) return true;
        peers.delete(instance);
      }
    }
    return this.everyHintUntil > now;
  }

  /** Health check on the slow timer, announcing this instance: a connection that stopped answering is replaced. */
  ping(): void {
    const client = this.client;
    if (!client) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    });
    Promise.race([this.statement(client, this.announcement('here', this.channels)), timeout])
      .catch((error: unknown) => this.lost(client, error))
      .finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client(this.config);
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.receive(message));
    try {
      await client.connect();
      await client.query('SET synchronous_commit TO off');
      for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.closed) return void client.end().catch(() => undefined);
    this.client = client;
    this.tail = Promise.resolve();
    this.backoffMs = 100;
    if (this.down) this.logger.log('News wake-ups: LISTEN connection to PostgreSQL is back; held polls re-read their feeds.');
    this.down = false;
    this.everyHintUntil = performance.now() + Math.min(ANSWERS_MS, this.announceMs);
    // After LISTEN: of two instances connecting at once, the later one's `hi` reaches the earlier.
    this.statement(client, this.announcement('hi', this.channels)).catch((error: unknown) => this.lost(client, error));
    this.events.listening();
  }

  /** The connection failed (or never opened): drop it and try again later. Runs once per client. */
  private lost(client: Client, error?: unknown): void {
    const marked = client as Client & { restapLost?: boolean };
    if (marked.restapLost) return;
    marked.restapLost = true;
    client.end().catch(() => undefined);
    if (this.client === client) this.client = undefined;
    if (this.closed) return;
    if (!this.down) {
      const why = error instanceof Error ? error.message : 'connection ended';
      this.logger.warn(`News wake-ups: LISTEN connection to PostgreSQL lost (${why}); reconnecting. Held polls still answer (from this instance's writes, and by re-reading every few seconds).`);
      this.down = true;
    }
    setTimeout(() => void this.connect(), this.backoffMs).unref();
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  /**
   * One statement for everything that waited: each feed once, newest ts, in payloads under 8000
   * bytes. The lane stays busy until {@link NOTIFY_SPACING_MS} after the statement started, so
   * what comes meanwhile waits for the next one.
   */
  private async flush(channel: string, hints: NewsCommitHint[]): Promise<void[]> {
    const started = performance.now();
    const client = this.client;
    if (client) {
      const newest = new Map<string, number>();
      for (const { feed, ts } of hints) newest.set(feed, Math.max(ts, newest.get(feed) ?? 0));
      const payloads: string[] = [];
      let payload = '';
      for (const [feed, ts] of newest) {
        const entry = ` ${feed}:${ts}`;
        if (payload && payload.length + entry.length > MAX_PAYLOAD) payloads.push(payload), (payload = '');
        payload = (payload || `1 ${this.instanceId}`) + entry;
      }
      if (payload) payloads.push(payload);
      // A simple query, not an extended one: one round trip without parse/bind (issue 41, round 4).
      await this.statement(client, payloads.map((p) => `NOTIFY ${client.escapeIdentifier(channel)}, ${client.escapeLiteral(p)}`).join('; '));
      const rest = NOTIFY_SPACING_MS - (performance.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
    return hints.map(() => undefined);
  }

  /** `NOTIFY` statements announcing this instance (`hi` or `here`) on `channels`, as one simple query. */
  private announcement(kind: 'hi' | 'here', channels: readonly string[]): string {
    const payload = `'2 ${this.instanceId} ${kind} ${this.announceMs}'`; // hex id and an integer: no quoting needed
    return channels.map((channel) => `NOTIFY ${channel}, ${payload}`).join('; ');
  }

  /** Sends an announcement outside the outbox (rare: when instances come and go); a failure is the health check's to find. */
  private announce(kind: 'hi' | 'here', channel: string): void {
    if (this.client) this.statement(this.client, this.announcement(kind, [channel])).catch(() => undefined);
  }

  /**
   * Sends `text` on `client` once the statement sent before it has its answer. The channels' hint
   * lanes, the health check and the announcements share the one connection: node-postgres 8 queues
   * a query sent while another runs only with a deprecation warning, and 9 refuses it.
   */
  private statement(client: Client, text: string): Promise<unknown> {
    const sent = this.tail.then(() => client.query(text));
    this.tail = sent.catch(() => undefined);
    return sent;
  }

  /**
   * Notes that `instance` listens on `channel`, for `intervalMs` times {@link PEER_LIFETIMES}. When
   * it was not known (or taken for gone) and this instance may have sent it no hints meanwhile, says
   * `hi`, so that it re-reads; returns true then.
   */
  private met(channel: string, instance: string, intervalMs: number): boolean {
    let peers = this.peers.get(channel);
    if (!peers) this.peers.set(channel, (peers = new Map()));
    const now = performance.now();
    const until = peers.get(instance) ?? 0;
    peers.set(instance, Math.max(until, now + PEER_LIFETIMES * intervalMs));
    if (until > now || this.everyHintUntil > now) return false;
    this.announce('hi', channel);
    return true;
  }

  /**
   * `1 <instance> <feed>:<ts> …` (hints) or `2 <instance> hi|here <ms>` (announcements, see the class
   * comment). This instance's own are skipped unparsed: its hints were already delivered in-process.
   */
  private receive(message: Notification): void {
    const { channel, payload } = message;
    if (!payload || payload.startsWith(this.instanceId, 2) || !this.channels.includes(channel)) return;
    const [version, instance, ...entries] = payload.split(' ');
    if (version === '2') return this.announced(channel, instance, entries);
    if (version !== '1' || !instance) return;
    // Hints from an instance not heard before (one that does not announce itself): it listens too.
    this.met(channel, instance, this.announceMs);
    const hints: NewsCommitHint[] = [];
    for (const entry of entries) {
      const at = entry.lastIndexOf(':');
      const ts = Number(entry.slice(at + 1));
      if (at > 0 && Number.isSafeInteger(ts)) hints.push({ feed: entry.slice(0, at), ts });
    }
    if (hints.length) this.events.hints(hints, channel);
  }

  private announced(channel: string, instance: string | undefined, [kind, ms]: string[]): void {
    const intervalMs = Number(ms);
    if (!instance || (kind !== 'hi' && kind !== 'here') || !Number.isSafeInteger(intervalMs) || intervalMs <= 0) return;
    if (kind === 'hi') this.events.listening();
    if (!this.met(channel, instance, intervalMs) && kind === 'hi') this.announce('here', channel);
  }
}
