import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { RestapSql } from '../../persistence/restap-sql';
import { BEAT, FORGET, IS_LIVE, PRUNE } from '../../persistence/replicas.sql';
import { RESTAP_SESSION_STORE, type SessionStore } from '../../persistence/session.store';
import { randomToken } from '../../sessions/random-token';
import { RestapDrain } from './restap-drain.service';

/** Failed turn writes kept for retry at most (see RestapReplicas.retryLater). */
const MAX_RETRIES = 10_000;

/**
 * Ends the orphaned work of dead instances of one kind (a door's tasks): given this instance's id
 * and the orphan window, marks what the dead ones left running and returns how many it marked.
 * Must be safe when several instances run it at once.
 */
export type OrphanSweeper = (self: string, orphanAfterMs: number) => Promise<number>;

/**
 * This app instance among its replicas. Each writes a heartbeat (restap_replicas) every
 * `replicas.heartbeatMs` — first at bootstrap, before it serves anything — and then sweeps: the
 * open /talk turns of instances whose heartbeat is older than `replicas.orphanAfterMs` are marked
 * interrupted (their user messages stay in history), and each registered sweeper (the A2A door:
 * running tasks → failed) does the same for its own work. An instance never sweeps its own work,
 * and sweeps only while its own heartbeats are regular: after it was cut off from the database
 * (or its event loop stalled), it first beats again and waits one interval, so that the live
 * instances whose heartbeats that outage delayed have written theirs before it judges them.
 *
 * On a graceful shutdown the drain (RestapDrain) ends and stores every turn first; the heartbeat
 * keeps going until then, and the instance's row is removed last, before the pool closes.
 */
@Injectable()
export class RestapReplicas implements OnApplicationBootstrap, OnApplicationShutdown {
  /** This instance's id, drawn at start: the `runner` of the turns and tasks it runs. */
  readonly id = randomToken(16);
  private readonly logger = new Logger('Restap');
  private readonly sweepers = new Map<string, OrphanSweeper>();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  /** When this instance's last heartbeat was written (Date.now()), if the last one succeeded. */
  private lastBeat?: number;
  private warned = false;
  /** Writes of this instance's own turns that failed (storage down), retried on each tick (see `retryLater`). */
  private readonly retries = new Set<() => Promise<void>>();

  constructor(
    private readonly sql: RestapSql,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    @Inject(RESTAP_SESSION_STORE) private readonly store: SessionStore,
    drain: RestapDrain,
  ) {
    // Once every turn has ended and been stored: stop beating and leave, before the pool closes.
    drain.afterDrain(() => this.leave());
  }

  /**
   * Retries `write` on every tick until it succeeds: a turn of this instance whose end could not be
   * stored (storage down) would otherwise stay `open` while this instance lives — never swept, as
   * a live instance's work never is. At most {@link MAX_RETRIES} are kept; past that, the oldest
   * is dropped (its turn is then marked interrupted once this instance stops).
   */
  retryLater(write: () => Promise<void>): void {
    if (this.retries.size >= MAX_RETRIES) this.retries.delete(this.retries.values().next().value as () => Promise<void>);
    this.retries.add(write);
  }

  /** Adds the sweep of one kind of work (e.g. `a2a.tasks`), run after the turns' on every tick. */
  registerSweeper(name: string, sweeper: OrphanSweeper): void {
    this.sweepers.set(name, sweeper);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Written before the app listens: no turn of this instance exists while it lacks a heartbeat.
    await this.beat();
    this.timer = setInterval(() => void this.tick(), this.options.replicas.heartbeatMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  /** Stops the heartbeat and removes this instance's row (its work has ended: see RestapDrain.afterDrain). */
  private async leave(): Promise<void> {
    this.stop();
    while (this.ticking) await new Promise((resolve) => setTimeout(resolve, 10));
    // A turn whose end still could not be stored keeps this instance's id: once the row below is
    // gone, the others mark it interrupted.
    await this.retry().catch(() => undefined);
    await this.sql.query(FORGET, [this.id]);
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** True when `id` is this instance, or another that wrote a heartbeat within the orphan window. */
  async isLive(id: string): Promise<boolean> {
    if (id === this.id) return true;
    const [row] = await this.sql.query<{ live: boolean }>(IS_LIVE, [id, this.options.replicas.orphanAfterMs]);
    return row?.live === true;
  }

  /**
   * Marks the work of dead instances (turns, then each registered sweeper's), then forgets them.
   * Returns how many turns and tasks it marked, by kind. Runs on every tick; public for tests.
   */
  async sweep(): Promise<Record<string, number>> {
    const { orphanAfterMs } = this.options.replicas;
    const swept: Record<string, number> = {};
    if (this.store.interruptOrphans) swept['talk.turns'] = await this.store.interruptOrphans(this.id, orphanAfterMs);
    for (const [name, sweeper] of this.sweepers) swept[name] = await sweeper(this.id, orphanAfterMs);
    await this.sql.query(PRUNE, [orphanAfterMs]);
    const marked = Object.entries(swept).filter(([, n]) => n > 0);
    if (marked.length) this.logger.warn(`Replicas: ended the work of an instance that stopped without shutting down: ${marked.map(([k, n]) => `${n} ${k}`).join(', ')}`);
    return swept;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    const { heartbeatMs } = this.options.replicas;
    // Regular: the previous heartbeat was written about one interval ago (not before an outage or a stall).
    const regular = this.lastBeat !== undefined && Date.now() - this.lastBeat <= 2 * heartbeatMs;
    try {
      await this.beat();
      await this.retry();
      if (regular) await this.sweep();
      this.warned = false;
    } catch (error) {
      if (!this.warned) this.logger.warn(`Replicas: heartbeat or sweep failed (retrying every ${heartbeatMs} ms): ${(error as Error)?.message ?? String(error)}`);
      this.warned = true;
    } finally {
      this.ticking = false;
    }
  }

  /** Runs the writes waiting for storage, in order; stops at the first that fails again. */
  private async retry(): Promise<void> {
    for (const write of this.retries) {
      await write();
      this.retries.delete(write);
    }
  }

  private async beat(): Promise<void> {
    this.lastBeat = undefined;
    await this.sql.query(BEAT, [this.id]);
    this.lastBeat = Date.now();
  }
}
