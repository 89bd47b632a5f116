import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../../interfaces/restap-options.interface';
import { TalkFrameStore } from '../../../../persistence/talk-frame.store';
import { isStorageError } from '../../../../persistence/storage-errors';

/** How often each replica deletes expired frames. */
const SWEEP_EVERY_MS = 60_000;
/** Rows one DELETE takes at most; a sweep repeats it while it finds that many. */
const SWEEP_BATCH = 5_000;
/** Slack past a turn's own deadline for the statement storing it. */
const STORE_MARGIN_MS = 60_000;

/**
 * Deletes the frames of resumable streams once nobody may resume them (`talk.resume`): a row is
 * kept `timeoutMs + graceMs` (plus a margin) from when it was written, so the closing row of a turn
 * outlives the turn by at least `graceMs` and the first rows of a turn outlive it by as much. Every
 * replica sweeps; the deletes are idempotent.
 */
@Injectable()
export class TalkFramesSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Restap');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly store: TalkFrameStore,
  ) {}

  onApplicationBootstrap(): void {
    const { talk } = this.options;
    if (!talk.enabled || !talk.resume) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep().then(
        () => undefined,
        () => undefined,
      ).finally(() => (this.running = undefined));
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Deletes every expired row; resolves with how many. */
  async sweep(): Promise<number> {
    const { talk } = this.options;
    if (!talk.resume) return 0;
    const age = talk.timeoutMs + talk.resume.graceMs + STORE_MARGIN_MS;
    let total = 0;
    try {
      for (;;) {
        const deleted = await this.store.sweep(age, SWEEP_BATCH);
        total += deleted;
        if (deleted < SWEEP_BATCH) return total;
      }
    } catch (error) {
      if (!isStorageError(error)) this.logger.error(`Could not delete expired /talk frames: ${(error as Error)?.name ?? 'Error'}`);
      return total;
    }
  }
}
