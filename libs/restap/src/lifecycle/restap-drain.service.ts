import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESTAP_OPTIONS } from '../restap.constants';
import { ShuttingDownException } from '../exceptions';
import type { ResolvedRestapOptions } from '../interfaces/restap-options.interface';
import { writeRestapError } from '../http/restap-error.writer';
import type { RouteMatch } from '../restap/http/restap-paths';

/** A running /talk turn as the drain sees it: it can be told to stop. */
export interface DrainableWork {
  /** Ends the turn now (the stream gets `error` + `done`, a JSON reply a 503). */
  stop(): void;
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
  private readonly work = new Set<DrainableWork>();
  private draining = false;
  /** Set while `settled` waits: called when the last tracked turn is done. */
  private emptied?: () => void;

  constructor(@Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions) {}

  /**
   * Follows a turn until the returned `done` is called (once it has answered and stored what it
   * could); a turn that starts after draining began is stopped at once. A callback, not a promise:
   * every turn goes through here, and a promise chain per turn was measurable.
   */
  track(work: DrainableWork): () => void {
    this.work.add(work);
    if (this.draining) work.stop();
    return () => {
      if (this.work.delete(work) && !this.work.size) this.emptied?.();
    };
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    if (!this.work.size) return;
    const grace = this.options.shutdownGraceMs;
    this.logger.log(`Shutting down: waiting up to ${grace} ms for ${this.work.size} open /talk turn(s)`);
    if (await this.settled(grace)) return;
    this.logger.warn(`Shutting down: ending ${this.work.size} /talk turn(s) still open after ${grace} ms`);
    for (const work of this.work) work.stop();
    await this.settled(STOP_WAIT_MS);
  }

  /** True when every tracked turn settled within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    if (!this.work.size) return true;
    const timeout = new AbortController();
    const all = new Promise<boolean>((resolve) => (this.emptied = () => resolve(true)));
    const result = await Promise.race([all, sleep(ms, false, { signal: timeout.signal }).catch(() => false)]);
    timeout.abort();
    this.emptied = undefined;
    return result && this.work.size === 0;
  }

  /** True once shutdown began: doors refuse new work (503 shutting_down). */
  isDraining(): boolean {
    return this.draining;
  }

  /** Called by the front door for requests on the module's paths: 503 for new work while draining. */
  refuseWhileDraining(res: Response, next: NextFunction, match: RouteMatch): void {
    if (!this.draining || match.route === 'catalog') return next();
    res.setHeader('Connection', 'close');
    writeRestapError(res, new ShuttingDownException());
  }
}
