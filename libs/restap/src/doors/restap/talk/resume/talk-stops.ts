import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../../interfaces/restap-options.interface';
import { TalkFrameStore } from '../../../../persistence/talk-frame.store';
import { TalkFrameWakeups } from './talk-frame.wakeups';

interface RunningTurn {
  keyHash: Buffer;
  stop: () => void;
}

/**
 * Explicit stops of resumable turns (`DELETE {talk path}/{message_id}`), whichever replica runs
 * them. With `talk.resume` a client that leaves no longer stops its turn, so a stop is asked for on
 * purpose: on the replica running the turn it takes effect at once; elsewhere a `stop` row is
 * written and a wake-up sent (TalkFrameWakeups, LISTEN/NOTIFY), and the replica running the turn
 * reads that turn's stop row at once. A wake-up can be lost: while it runs resumable turns, a
 * replica also reads which of them were asked to stop (one statement for all of them) at each
 * resync (`news.resyncMs`, and after a LISTEN reconnection), and every two `pollMs` while no LISTEN
 * connection carries wake-ups.
 */
@Injectable()
export class TalkStops implements OnModuleDestroy {
  private readonly running = new Map<string, RunningTurn>();
  private timer?: NodeJS.Timeout;
  private polling = false;
  private readonly everyMs: number;
  /** The wake-up subscriptions held while resumable turns run here. */
  private readonly unwatch: Array<() => void> = [];

  constructor(
    @Inject(RESTAP_OPTIONS) options: ResolvedRestapCoreOptions,
    private readonly store: TalkFrameStore,
    private readonly wakeups: TalkFrameWakeups,
  ) {
    this.everyMs = options.talk.resume ? 2 * options.talk.resume.pollMs : 500;
  }

  /** Follows a turn running here until the returned function is called (when it ends). */
  follow(messageId: string, keyHash: Buffer, stop: () => void): () => void {
    this.running.set(messageId, { keyHash, stop });
    // Set up at the first turn and kept: they cost nothing while no turn runs (poll reads nothing then).
    if (!this.timer) {
      this.unwatch.push(
        this.wakeups.onStopAsked((id) => {
          if (this.running.has(id)) void this.poll([id]);
        }),
        this.wakeups.onResync(() => void this.poll()),
      );
      this.timer = setInterval(() => {
        if (!this.wakeups.listening) void this.poll();
      }, this.everyMs);
      this.timer.unref();
    }
    return () => void this.running.delete(messageId);
  }

  /** Stops the turn at once when it runs here for that session; false otherwise. */
  stopHere(messageId: string, keyHash: Buffer): boolean {
    const turn = this.running.get(messageId);
    if (!turn || !turn.keyHash.equals(keyHash)) return false;
    turn.stop();
    return true;
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unwatch.splice(0).forEach((stop) => stop());
  }

  /** Reads the stop rows of `only` (default: every resumable turn running here) and stops those asked. */
  private async poll(only?: string[]): Promise<void> {
    const ids = only ?? [...this.running.keys()];
    if (!ids.length) return;
    // One read of every running turn at a time; a wake-up for one turn reads it alone, at once.
    const sweep = only === undefined;
    if (sweep && this.polling) return;
    if (sweep) this.polling = true;
    try {
      for (const messageId of await this.store.stopsAsked(ids)) this.running.get(messageId)?.stop();
    } catch {
      // Storage down: the next resync asks again; the turn's own deadline still bounds it.
    } finally {
      if (sweep) this.polling = false;
    }
  }
}
