import { Client, type ClientConfig } from 'pg';

/** What the watchdog knows of one connection: bytes read at the last sweep, and since when none came while a reply was awaited. */
interface Watched {
  read: number;
  /** Date.now() of the sweep that first saw it awaiting a reply without progress; -1 while it is idle or progressing. */
  silentSince: number;
}

/**
 * node-postgres' `query_timeout` for a whole pool, kept by one sweep instead of one timer per
 * statement. A connection that awaits a reply (a statement sent, `ReadyForQuery` not yet back) and
 * has read nothing for `timeoutMs` is destroyed: its statements fail with "Connection terminated
 * unexpectedly" (503 storage_unavailable) and the pool replaces it. So a request still fails
 * within seconds when the network goes silent mid-statement, while a statement costs no timer,
 * and no timer closure keeps each statement's objects alive for seconds.
 *
 * @example
 * const watchdog = new ReplyWatchdog(6_000);
 * new Pool({ ...config, Client: watchdog.clientClass() });
 */
export class ReplyWatchdog {
  private readonly clients = new Map<Client, Watched>();
  private timer?: NodeJS.Timeout;

  constructor(
    /** Longest silence of the server while a reply is awaited. */
    readonly timeoutMs: number,
    /** How often connections are looked at: a stuck one fails between timeoutMs and timeoutMs + sweepMs. */
    readonly sweepMs = Math.min(500, timeoutMs),
  ) {}

  /**
   * A `pg.Client` class for the pool's `Client` option: its connections are watched from their
   * `connect` to their `end`, and its own per-statement `query_timeout` is off.
   */
  clientClass(): typeof Client {
    const watch = (client: Client): void => this.watch(client);
    const forget = (client: Client): void => this.forget(client);
    return class WatchedClient extends Client {
      constructor(config?: string | ClientConfig) {
        super(typeof config === 'string' ? { connectionString: config } : { ...config, query_timeout: undefined });
        this.once('connect', () => watch(this));
        this.once('end', () => forget(this));
      }
    };
  }

  /** Watches a connected client until {@link forget}. */
  watch(client: Client): void {
    this.clients.set(client, { read: 0, silentSince: -1 });
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(Date.now()), this.sweepMs);
      this.timer.unref();
    }
  }

  forget(client: Client): void {
    this.clients.delete(client);
    if (this.clients.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Destroys the connections that awaited a reply without reading a byte for `timeoutMs` up to `now`. */
  sweep(now: number): void {
    for (const [client, watched] of this.clients) {
      const socket = client.connection?.stream as { bytesRead?: number; destroy(): void } | undefined;
      const read = socket?.bytesRead ?? 0;
      const awaiting = (client as { readyForQuery?: boolean }).readyForQuery === false;
      if (!awaiting || read !== watched.read) {
        watched.read = read;
        watched.silentSince = awaiting ? now : -1;
      } else if (watched.silentSince < 0) {
        watched.silentSince = now;
      } else if (now - watched.silentSince >= this.timeoutMs) {
        this.forget(client);
        socket?.destroy();
      }
    }
  }
}
