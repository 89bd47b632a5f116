import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../../interfaces/restap-options.interface';
import { TalkFrameStore } from '../../../../persistence/talk-frame.store';

interface RunningTurn {
  keyHash: Buffer;
  stop: () => void;
}

/**
 * Explicit stops of resumable turns (`DELETE {talk path}/{message_id}`), whichever replica runs
 * them. With `talk.resume` a client that leaves no longer stops its turn, so a stop is asked for on
 * purpose: on the replica running the turn it takes effect at once; elsewhere a `stop` row is
 * written, and each replica reads, every two `pollMs` while it runs resumable turns, which of its
 * turns were asked to stop (one statement for all of them).
 */
@Injectable()
export class TalkStops implements OnModuleDestroy {
  private readonly running = new Map<string, RunningTurn>();
  private timer?: NodeJS.Timeout;
  private polling = false;
  private readonly everyMs: number;

  constructor(
    @Inject(RESTAP_OPTIONS) options: ResolvedRestapCoreOptions,
    private readonly store: TalkFrameStore,
  ) {
    this.everyMs = options.talk.resume ? 2 * options.talk.resume.pollMs : 500;
  }

  /** Follows a turn running here until the returned function is called (when it ends). */
  follow(messageId: string, keyHash: Buffer, stop: () => void): () => void {
    this.running.set(messageId, { keyHash, stop });
    if (!this.timer) {
      this.timer = setInterval(() => void this.poll(), this.everyMs);
      this.timer.unref();
    }
    return () => {
      this.running.delete(messageId);
      if (!this.running.size) this.idle();
    };
  }

  /** Stops the turn at once when it runs here for that session; false otherwise. */
  stopHere(messageId: string, keyHash: Buffer): boolean {
    const turn = this.running.get(messageId);
    if (!turn || !turn.keyHash.equals(keyHash)) return false;
    turn.stop();
    return true;
  }

  onModuleDestroy(): void {
    this.idle();
  }

  private idle(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling || !this.running.size) return;
    this.polling = true;
    try {
      for (const messageId of await this.store.stopsAsked([...this.running.keys()])) this.running.get(messageId)?.stop();
    } catch {
      // Storage down: the next tick asks again; the turn's own deadline still bounds it.
    } finally {
      this.polling = false;
    }
  }
}
