import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { NewsWakeups, type WakeupTopic } from '../../../../core/news/news-wakeups';
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
 * A wake-up is a hint and can be lost: a follower also re-reads at each NewsWakeups resync (after a
 * LISTEN (re)connection and every `news.resyncMs`), and every `talk.resume.pollMs` while no LISTEN
 * connection carries wake-ups (the embedded database, `news.wakeups: 'in-process'`, or the connection down).
 */
@Injectable()
export class TalkFrameWakeups implements OnModuleInit, OnApplicationShutdown {
  private topic?: WakeupTopic;
  /** Followers per message_id: each resolves once, at the turn's next wake-up (or a resync). */
  private readonly waiters = new Map<string, Set<(woken: boolean) => void>>();
  private readonly stopListeners = new Set<(messageId: string) => void>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly pollMs: number;

  constructor(
    @Inject(RESTAP_OPTIONS) options: ResolvedRestapCoreOptions,
    private readonly wakeups: NewsWakeups,
  ) {
    this.pollMs = options.talk.enabled && options.talk.resume ? options.talk.resume.pollMs : 0;
  }

  /** Registered before bootstrap, so the LISTEN connection carries the channel; only with `talk.resume`. */
  onModuleInit(): void {
    if (!this.pollMs) return;
    this.topic = this.wakeups.topic(TALK_FRAMES_CHANNEL);
    this.unsubscribe.push(
      this.topic.on((key) => this.received(key)),
      this.wakeups.onResync(() => this.wakeAll()),
    );
  }

  onApplicationShutdown(): void {
    this.unsubscribe.splice(0).forEach((stop) => stop());
    this.wakeAll();
  }

  /** True while wake-ups from other instances arrive (a LISTEN connection is in place). */
  get listening(): boolean {
    return this.topic !== undefined && this.wakeups.listening;
  }

  /** A run of the turn's frames was committed here: wakes its followers on every instance. */
  written(messageId: string): void {
    this.topic?.send(`${FRAMES}${messageId}`);
  }

  /** This instance wrote a stop row for the turn (once committed): wakes the replica running it. */
  stopAsked(messageId: string): void {
    this.topic?.send(`${STOP}${messageId}`);
  }

  /** Calls `listener` with the message_id of each turn some instance was asked to stop; returns the unsubscribe function. */
  onStopAsked(listener: (messageId: string) => void): () => void {
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  /** Calls `listener` when wake-ups may have been missed (after a LISTEN (re)connection, every `news.resyncMs`). */
  onResync(listener: () => void): () => void {
    return this.wakeups.onResync(listener);
  }

  /**
   * Resolves true at the turn's next wake-up, at a resync, or — while no LISTEN connection carries
   * wake-ups — after `pollMs`: read the frames then. Resolves false after `timeoutMs` or once
   * `signal` aborts. Arm it before reading, then await it: frames committed in between are not missed.
   */
  next(messageId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let waiters = this.waiters.get(messageId);
      if (!waiters) this.waiters.set(messageId, (waiters = new Set()));
      const own = waiters;
      const done = (woken: boolean) => {
        clearTimeout(timer);
        clearTimeout(fallback);
        signal?.removeEventListener('abort', aborted);
        own.delete(done);
        if (!own.size && this.waiters.get(messageId) === own) this.waiters.delete(messageId);
        resolve(woken);
      };
      const aborted = () => done(false);
      own.add(done);
      const timer = setTimeout(() => done(false), timeoutMs);
      const fallback = this.listening ? undefined : setTimeout(() => done(true), this.pollMs || 250);
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  private received(key: string): void {
    const messageId = key.slice(1);
    if (key.startsWith(FRAMES)) [...(this.waiters.get(messageId) ?? [])].forEach((wake) => wake(true));
    else if (key.startsWith(STOP)) for (const listener of this.stopListeners) listener(messageId);
  }

  private wakeAll(): void {
    for (const waiters of [...this.waiters.values()]) [...waiters].forEach((wake) => wake(true));
  }
}
