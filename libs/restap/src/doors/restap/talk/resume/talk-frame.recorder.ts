import type { TalkFrameStore, TalkFramesRow } from '../../../../persistence/talk-frame.store';
import type { RestapTalkResumeOptions } from '../../../../interfaces/restap-options.interface';

/** One kept frame: its event name and its data's JSON text. */
export type KeptFrame = [event: string, data: string];

/**
 * Keeps the frames of one resumable /talk stream (`talk.resume`). Frames are numbered as the
 * stream numbers them (1 = message.start) and written in runs, every turn of the instance sharing
 * one batched INSERT: a running turn's new frames at most every `flushMs`, and, once the stream
 * sends `done`, the rest with the frame that closed it (`message.end` or `error`, exactly as the
 * live client got it) as the turn's `final` run. That write is not awaited by anyone (the live
 * stream has ended; a resume waits for it) and touches no logged table: it costs no WAL flush and
 * stays off the turn's own statement. Nothing of the session_id is kept: message.start is kept
 * without it (a resume adds the caller's back), `done` is implied by the final run. Past
 * `maxFrames` or `maxBytes` the turn stops being kept and its final run is marked `cut`.
 */
export class TalkFrameRecorder {
  private pending: KeptFrame[] = [];
  /** Id of `pending[0]`. */
  private firstId = 1;
  private nextId = 1;
  private frames = 0;
  private bytes = 0;
  private cut = false;
  private closed = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: TalkFrameStore,
    private readonly messageId: string,
    private readonly keyHash: Buffer,
    private readonly limits: Required<Pick<RestapTalkResumeOptions, 'flushMs' | 'maxFrames' | 'maxBytes'>>,
    /** Called once a run is committed: wakes the turn's resumed streams on every replica (TalkFrameWakeups). */
    private readonly written: (messageId: string) => void = () => undefined,
  ) {}

  /** The stream's next frame (SseWriter's `onFrame`); `done` closes the record. */
  record(event: string, data: string): void {
    const id = this.nextId++;
    if (this.closed) return;
    if (event === 'done') return this.close(id);
    if (this.cut) return;
    const kept = event === 'message.start' ? JSON.stringify({ event, id: this.messageId }) : data;
    this.frames += 1;
    this.bytes += kept.length + event.length;
    if (this.frames > this.limits.maxFrames || this.bytes > this.limits.maxBytes) {
      this.cut = true;
      this.pending = [];
      clearTimeout(this.timer);
      return;
    }
    if (!this.pending.length) this.firstId = id;
    this.pending.push([event, kept]);
    this.timer ??= setTimeout(() => this.flush(), this.limits.flushMs);
  }

  /** Stops keeping frames: the stream ended without `done`; a resume of it ends with agent_interrupted. */
  discard(): void {
    clearTimeout(this.timer);
    this.closed = true;
    this.pending = [];
  }

  /** `done` went out (its id is `doneId`): the final run, or a `cut` marker, is written. */
  private close(doneId: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.closed = true;
    if (this.cut) {
      const marker = { messageId: this.messageId, keyHash: this.keyHash, firstId: doneId, lastId: doneId - 1, frames: '[]', state: 'cut' as const };
      return this.append(marker);
    }
    if (!this.pending.length) return this.append({ ...this.row('final'), firstId: doneId, lastId: doneId - 1 });
    this.write('final');
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed || !this.pending.length) return;
    this.write('open');
  }

  private write(state: 'open' | 'final'): void {
    const row = this.row(state);
    this.pending = [];
    // A run that could not be written leaves a gap: a resume waits at it, then ends the stream
    // with agent_interrupted — the live stream itself goes on.
    this.append(row);
  }

  private append(row: TalkFramesRow): void {
    this.store.append(row).then(() => this.written(this.messageId), () => undefined);
  }

  private row(state: 'open' | 'final'): TalkFramesRow {
    return {
      messageId: this.messageId,
      keyHash: this.keyHash,
      firstId: this.firstId,
      lastId: this.firstId + this.pending.length - 1,
      frames: JSON.stringify(this.pending),
      state,
    };
  }
}
