import { Client, Pool, type PoolClient, type PoolConfig } from 'pg';

/** A checkout waiting for a connection: since when, and whether it was already answered. */
interface Waiter {
  readonly since: number;
  readonly callback: (err: Error | undefined, client?: PoolClient, release?: (err?: Error | boolean) => void) => void;
  answered: boolean;
}

/** What node-postgres' pool says when a checkout outlasts `connectionTimeoutMillis` (RESTAP reads it as 503 storage_unavailable). */
const CHECKOUT_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * node-postgres' `connectionTimeoutMillis` for a whole pool, kept by one sweep instead of the
 * pool's timer per checkout: a checkout that got no connection within `timeoutMs` fails with the
 * pool's own error (503 storage_unavailable), and a new connection whose server has not answered
 * within it is destroyed (as the pool does). A connection that reaches a checkout already failed
 * goes straight back to the pool. Without it, pg-pool arms and clears a timer at each checkout,
 * two a turn, while the bound only ever matters when the pool is exhausted or the server silent.
 *
 * @example
 * const checkouts = new CheckoutWatchdog(2_000);
 * new (checkouts.poolClass())({ ...config, Client: replies.clientClass() });
 */
export class CheckoutWatchdog {
  private readonly waiters = new Set<Waiter>();
  private readonly connecting = new Map<Client, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    /** Longest wait for a connection: from the pool, or from the server for a new one. */
    readonly timeoutMs: number,
    /** How often waits are looked at: a stuck one fails between timeoutMs and timeoutMs + sweepMs. */
    readonly sweepMs = Math.min(500, timeoutMs),
  ) {}

  /** A `pg.Pool` class whose checkouts and new connections are bounded by this watchdog; its own `connectionTimeoutMillis` is off. */
  poolClass(): typeof Pool {
    const watchdog = this;
    return class WatchedPool extends Pool {
      constructor(config?: PoolConfig) {
        const Base = (config?.Client ?? Client) as typeof Client;
        super({ ...config, connectionTimeoutMillis: 0, Client: watchdog.connectingClass(Base) });
      }

      // pg-pool's two forms: a callback (TypeORM's and pool.query's), or a promise.
      override connect(): Promise<PoolClient>;
      override connect(callback: Waiter['callback']): void;
      override connect(callback?: Waiter['callback']): Promise<PoolClient> | void {
        if (!callback) {
          return new Promise<PoolClient>((resolve, reject) => this.connect((err, client) => (err ? reject(err) : resolve(client as PoolClient))));
        }
        const waiter: Waiter = { since: Date.now(), callback, answered: false };
        watchdog.wait(waiter);
        super.connect((err: Error | undefined, client?: PoolClient, release?: (err?: Error | boolean) => void) => {
          if (waiter.answered) return void (client && release?.());
          watchdog.answer(waiter);
          callback(err, client, release);
        });
      }
    };
  }

  /** Fails the checkouts and destroys the new connections that waited `timeoutMs` or more up to `now`. */
  sweep(now: number): void {
    for (const waiter of this.waiters) {
      if (now - waiter.since < this.timeoutMs) continue;
      this.answer(waiter);
      waiter.callback(new Error(CHECKOUT_TIMEOUT));
    }
    for (const [client, since] of this.connecting) {
      if (now - since < this.timeoutMs) continue;
      this.connecting.delete(client);
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
    this.idle();
  }

  private connectingClass(Base: typeof Client): typeof Client {
    const watchdog = this;
    return class ConnectingClient extends Base {
      override connect(...args: unknown[]): never {
        watchdog.connecting.set(this, Date.now());
        watchdog.sweeping();
        const done = (): void => void watchdog.connecting.delete(this);
        this.once('connect', done);
        this.once('end', done);
        return (super.connect as (...a: unknown[]) => never)(...args);
      }
    };
  }

  private wait(waiter: Waiter): void {
    this.waiters.add(waiter);
    this.sweeping();
  }

  private answer(waiter: Waiter): void {
    waiter.answered = true;
    this.waiters.delete(waiter);
  }

  /** One interval while anything is watched; none while the pool is quiet. */
  private sweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(Date.now()), this.sweepMs);
    this.timer.unref();
  }

  private idle(): void {
    if (this.waiters.size === 0 && this.connecting.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
