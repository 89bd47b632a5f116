import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { NewsWakeups } from '../../../../core/news/news-wakeups';
import { KeyedWakeups } from '../../../../core/news/keyed-wakeups';
import { RESTAP_OPTIONS } from '../../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../../interfaces/restap-options.interface';

/** The NOTIFY channel of resumable /talk wake-ups. */
export const TALK_FRAMES_CHANNEL = 'restap_talk';

const FRAMES = 'f';
const STOP = 's';

/**
 * Cross-replica wake-ups of resumed /talk streams (`talk.resume`, issue 38 item 5), on the
 * instance's one LISTEN connection (NewsWakeups' topic {@link TALK_FRAMES_CHANNEL}): once a run of a
 * turn's frames is committed (see TalkFrameRecorder), the instance that wrote it sends the turn's
 * message_id (never anything of its session), and a resume following that turn on any replica reads
 * the new frames at once instead of reading the frames table every `pollMs`. A stop asked on a
 * replica that does not run the turn (`DELETE {talk path}/{message_id}`, see TalkStops) sends the
 * message_id the same way, and the replica running it reads that turn's stop row at once.
 *
 * A wake-up is a hint (see KeyedWakeups): a follower also re-reads at each resync, and every
 * `talk.resume.pollMs` while no LISTEN connection carries wake-ups.
 */
@Injectable()
export class TalkFrameWakeups implements OnModuleInit, OnApplicationShutdown {
  private readonly keys: KeyedWakeups;
  private readonly pollMs: number;

  constructor(
    @Inject(RESTAP_OPTIONS) options: ResolvedRestapCoreOptions,
    wakeups: NewsWakeups,
  ) {
    this.pollMs = options.talk.enabled && options.talk.resume ? options.talk.resume.pollMs : 0;
    this.keys = new KeyedWakeups(wakeups, TALK_FRAMES_CHANNEL, this.pollMs || 250);
  }

  /** Registered before bootstrap, so the LISTEN connection carries the channel; only with `talk.resume`. */
  onModuleInit(): void {
    if (this.pollMs) this.keys.start();
  }

  onApplicationShutdown(): void {
    this.keys.stop();
  }

  /** True while wake-ups from other instances arrive (a LISTEN connection is in place). */
  get listening(): boolean {
    return this.keys.listening;
  }

  /** A run of the turn's frames was committed here: wakes its followers on every instance. */
  written(messageId: string): void {
    this.keys.send(FRAMES, messageId);
  }

  /** This instance wrote a stop row for the turn (once committed): wakes the replica running it. */
  stopAsked(messageId: string): void {
    this.keys.send(STOP, messageId);
  }

  /** Calls `listener` with the message_id of each turn some instance was asked to stop; returns the unsubscribe function. */
  onStopAsked(listener: (messageId: string) => void): () => void {
    return this.keys.on(STOP, listener);
  }

  /** Calls `listener` when wake-ups may have been missed (after a LISTEN (re)connection, every `news.resyncMs`). */
  onResync(listener: () => void): () => void {
    return this.keys.onResync(listener);
  }

  /**
   * Resolves true at the turn's next wake-up, at a resync, or — while no LISTEN connection carries
   * wake-ups — after `pollMs`: read the frames then. Resolves false after `timeoutMs` or once
   * `signal` aborts. Arm it before reading, then await it: frames committed in between are not missed.
   */
  next(messageId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.keys.changed(FRAMES, messageId, signal, timeoutMs);
  }
}
