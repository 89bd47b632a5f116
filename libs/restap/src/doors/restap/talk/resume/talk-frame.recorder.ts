import type { TalkFrameStore, TalkFramesRow } from '../../../../persistence/talk-frame.store';
import type { TurnSideRow } from '../../../../persistence/session.store';
import type { RestapTalkResumeOptions } from '../../../../interfaces/restap-options.interface';

/** One kept frame: its event name and its data's JSON text. */
export type KeptFrame = [event: string, data: string];

/**
 * Keeps the frames of one resumable /talk stream (`talk.resume`). Frames are numbered as the
 * stream numbers them (1 = message.start) and written in runs, every turn of the instance sharing
 * one batched INSERT: a running turn's new frames at most every `flushMs`, and, once the stream
 * sends `done`, the rest with the frame that closed it (`message.end` or `error`, exactly as the
 * live client got it) as the turn's `final` run. A reply that completes has its final run written
 * in the statement that stores the turn ({@link finalSide}, TurnRequest.side): the frames still
 * pending and the `message.end` the stream sends once that statement has committed, one commit for
 * both (issue 41). Otherwise (an error, a stopped turn, a store without side rows) the final run
 * is a write of its own, awaited by no one (the live stream has ended; a resume waits for it),
 * into a table that is not WAL-logged. Nothing of the session_id is kept: message.start is kept
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
  /** Set by {@link finalSide}: the data of the `message.end` in the final run handed to the turn's statement. */
  private side?: string;

  constructor(
    private readonly store: TalkFrameStore,
    private readonly messageId: string,
    /** The hash of the turn's session_id (what a resume or a stop must prove). */
    readonly keyHash: Buffer,
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
    const kept = event === 'message.start' ? withoutSession(data) : data;
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
   * The final run of a reply that completed, as a side row of the statement storing its turn: the
   * frames still pending, then the `message.end` the stream will send next (its id and data as
   * SseWriter writes them). Undefined when it cannot be (cut, ended, or the store has no side
   * rows). Pending frames stay until {@link sideStored}: should the statement fail, the stream
   * ends with `error` and they are written in a final run of their own, as before.
   */
  finalSide(): TurnSideRow | undefined {
    if (this.closed || this.cut) return undefined;
    const endId = this.nextId;
    const endData = JSON.stringify({ event: 'message.end', id: this.messageId });
    // Past the limits with it, the turn is cut when message.end is recorded, as before.
    if (this.frames + 1 > this.limits.maxFrames || this.bytes + endData.length + 'message.end'.length > this.limits.maxBytes) return undefined;
    const firstId = this.pending.length ? this.firstId : endId;
    // Kept pending without it until the statement commits (see sideStored): a failed one ends the stream with `error` instead.
    this.pending.push(['message.end', endData]);
    const frames = JSON.stringify(this.pending);
    this.pending.pop();
    const row = this.store.sideRow({ messageId: this.messageId, keyHash: this.keyHash, firstId, lastId: endId, frames, state: 'final' });
    if (!row) return undefined;
    // No `open` run may take these frames meanwhile: the side row's first id would then conflict.
    clearTimeout(this.timer);
    this.timer = undefined;
    this.side = endData;
    return row;
  }

  /**
   * The statement storing the turn committed the run {@link finalSide} gave: the record is complete
   * (the stream's next frames are that `message.end`, then `done`); nothing more is written.
   */
  sideStored(): void {
    if (this.side === undefined) return;
    this.pending = [];
    this.closed = true;
    this.written(this.messageId);
  }

  /** The data of the `message.end` the stream sends next, once {@link sideStored}: as kept in the final run. */
  get endData(): string | undefined {
    return this.closed ? this.side : undefined;
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

/** message.start's data as SseWriter wrote it (`event`, `id`, then `session_id`), without the session_id. */
function withoutSession(data: string): string {
  // Inside a JSON string every quote is escaped: the first `,"session_id":` is the field.
  const at = data.indexOf(',"session_id":');
  return at < 0 ? data : `${data.slice(0, at)}}`;
}
