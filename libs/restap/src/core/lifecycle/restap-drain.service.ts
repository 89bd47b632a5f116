import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';

/** A running /talk turn as the drain sees it: it can be told to stop. */
export interface DrainableWork {
  /** Ends the turn now (the stream gets `error` + `done`, a JSON reply a 503). */
  stop(): void;
}

/** A followed turn in the drain's list. */
interface Tracked {
  readonly work: DrainableWork;
  newer: Tracked | undefined;
  older: Tracked | undefined;
}

/** Longest wait, after the grace period, for stopped turns to write their last frames and store. */
const STOP_WAIT_MS = 3_000;

/**
 * Graceful shutdown. `beforeApplicationShutdown` (Nest runs it before closing the HTTP server and,
 * after that, the TypeORM pool) flips the module into draining: new /talk and /news requests get
 * 503 shutting_down with `Retry-After` (discovery keeps answering); running turns get
 * `shutdownGraceMs` to finish, then are stopped and end with `error` + `done`.
 */
@Injectable()
export class RestapDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Restap');
  /** The turns being followed, newest first (see `track`). */
  private newest?: Tracked;
  private draining = false;
  /** Set while `settled` waits: called when the last tracked turn is done. */
  private emptied?: () => void;
  /** Run once every turn has ended and been stored (see `afterDrain`). */
  private readonly afterwards: Array<() => Promise<void>> = [];

  constructor(@Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions) {}

  /**
   * Follows a turn until the returned `done` is called (once it has answered and stored what it
   * could); a turn that starts after draining began is stopped at once. A callback, not a promise:
   * every turn goes through here. The turns are a linked list, not a Set: a Set of ever-changing
   * turns reallocates its table every few dozen turns, and the tables it leaves in V8's old
   * generation keep the turns they held past the young generation's collections.
   */
  track(work: DrainableWork): () => void {
    const node: Tracked = { work, newer: undefined, older: this.newest };
    if (this.newest) this.newest.newer = node;
    this.newest = node;
    if (this.draining) work.stop();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.unlink(node);
      if (!this.newest) this.emptied?.();
    };
  }

  /** Takes `node` out of the list and clears its links, so nothing it pointed at is kept by it. */
  private unlink(node: Tracked): void {
    if (node.newer) node.newer.older = node.older;
    else this.newest = node.older;
    if (node.older) node.older.newer = node.newer;
    node.newer = node.older = undefined;
  }

  /** How many turns are followed (for the shutdown log only: it walks the list). */
  private count(): number {
    let n = 0;
    for (let node = this.newest; node; node = node.older) n++;
    return n;
  }

  /** Stops every turn still followed (each is unlinked when it calls its `done`). */
  private stopAll(): void {
    for (let node = this.newest; node; ) {
      const older = node.older;
      node.work.stop();
      node = older;
    }
  }

  /**
   * Runs `work` at the end of the drain, once every turn has ended and stored what it could, before
   * the HTTP server and the database pool close (e.g. removing this instance's heartbeat).
   */
  afterDrain(work: () => Promise<void>): void {
    this.afterwards.push(work);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    try {
      await this.drainTurns();
    } finally {
      for (const work of this.afterwards) await work().catch((error: unknown) => this.logger.warn(`Shutting down: ${(error as Error)?.message ?? String(error)}`));
    }
  }

  private async drainTurns(): Promise<void> {
    if (!this.newest) return;
    const grace = this.options.shutdownGraceMs;
    this.logger.log(`Shutting down: waiting up to ${grace} ms for ${this.count()} open /talk turn(s)`);
    if (await this.settled(grace)) return;
    this.logger.warn(`Shutting down: ending ${this.count()} /talk turn(s) still open after ${grace} ms`);
    this.stopAll();
    await this.settled(STOP_WAIT_MS);
  }

  /** True when every tracked turn settled within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    if (!this.newest) return true;
    const timeout = new AbortController();
    const all = new Promise<boolean>((resolve) => (this.emptied = () => resolve(true)));
    const result = await Promise.race([all, sleep(ms, false, { signal: timeout.signal }).catch(() => false)]);
    timeout.abort();
    this.emptied = undefined;
    return result && !this.newest;
  }

  /** True once shutdown began: doors refuse new work (503 shutting_down, see DoorKit.refuseWhileDraining). */
  isDraining(): boolean {
    return this.draining;
  }
}
