import type { TurnSideRow } from '../../../../persistence/session.store';
import type { TalkFrameStore } from '../../../../persistence/talk-frame.store';
import type { RestapTalkResumeOptions } from '../../../../interfaces/restap-options.interface';

/** One kept frame: its event name and its data's JSON text. */
export type KeptFrame = [event: string, data: string];

/**
 * Keeps the frames of one resumable /talk stream (`talk.resume`). Frames are numbered as the
 * stream numbers them (1 = message.start) and written in runs: a running turn's new frames go out
 * at most every `flushMs` (one batched INSERT for every turn of the instance), and whatever is left
 * when the turn ends rides the statement that stores the turn, with the frame closing it — so a
 * turn that ends within `flushMs` costs no statement of its own. Nothing of the session_id is kept:
 * message.start is kept without it (a resume adds the caller's back), `done` is not kept at all.
 * Past `maxFrames` or `maxBytes` the turn stops being kept and is marked `cut`.
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
  ) {}

  /** The stream's next frame (SseWriter's `onFrame`). */
  record(event: string, data: string): void {
    const id = this.nextId++;
    if (this.closed || this.cut) return;
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

  /**
   * The row closing the turn, with the frame the stream is about to close with (its id is the
   * next one), for the statement storing the turn. A row written there exists exactly when the
   * turn is stored. No more frames are kept after it.
   */
  closing(frame: KeptFrame): TurnSideRow {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.closed = true;
    const id = this.nextId;
    if (this.cut) {
      return this.store.closingRow({ messageId: this.messageId, keyHash: this.keyHash, firstId: id, lastId: id, frames: '[]', state: 'cut' });
    }
    if (!this.pending.length) this.firstId = id;
    this.pending.push(frame);
    const row = this.row('final');
    this.pending = [];
    return this.store.closingRow(row);
  }

  /** Stops keeping frames (the turn ended without a row closing it). */
  discard(): void {
    clearTimeout(this.timer);
    this.closed = true;
    this.pending = [];
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed || !this.pending.length) return;
    const row = this.row('open');
    this.pending = [];
    // A run that could not be written leaves a gap: a resume waits at it, then ends the stream
    // with agent_interrupted — the live stream itself goes on.
    this.store.append(row).catch(() => undefined);
  }

  private row(state: 'open' | 'final') {
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
