import type { TalkFramesState } from './entities/restap-talk-frame.entity';
import type { TurnSideRow } from './session.store';

export type { TalkFramesState };

/** `first_id` of the row asking for a turn to stop: no frame has id 0. */
export const STOP_ROW_ID = 0;

/** A run of consecutive frames of one turn, as written (see RestapTalkFrameEntity). */
export interface TalkFramesRow {
  messageId: string;
  /** SHA-256 of the owning session_id. */
  keyHash: Buffer;
  firstId: number;
  lastId: number;
  /** JSON array of `[event, data]` pairs, one per event id from `firstId` to `lastId` (empty for a `cut` row). */
  frames: string;
  state: TalkFramesState;
}

/** A row as read back for a resume. */
export interface StoredTalkFrames {
  firstId: number;
  lastId: number;
  frames: string;
  state: TalkFramesState;
}

/** What is kept of one turn, in one read: none when nothing is (unknown, another session's, or expired). */
export interface TalkFramesSummary {
  startedAt: Date;
  lastId: number;
  /** A `final` or `cut` row is stored: the turn is over. */
  ended: boolean;
}

/**
 * Where the frames of resumable /talk streams are kept (`talk.resume`), shared by every replica.
 * A turn is addressed by its message_id and the hash of its session_id together: another session's
 * turn reads as none.
 */
export abstract class TalkFrameStore {
  /** Writes a run of a turn's frames; concurrent calls (every turn of the instance) share one statement. Resolves once committed. */
  abstract append(row: TalkFramesRow): Promise<void>;
  /** Rows of the turn holding event ids after `afterId`, and its final (or cut) row, in order, at most `limit`. */
  abstract read(messageId: string, keyHash: Buffer, afterId: number, limit: number): Promise<StoredTalkFrames[]>;
  /** What is kept of the turn, or undefined. */
  abstract summary(messageId: string, keyHash: Buffer): Promise<TalkFramesSummary | undefined>;
  /**
   * Asks the replica running the turn to stop it (a `stop` row, read by {@link stopsAsked}):
   * `stopping` when asked, `ended` when the turn is already over, `unknown` when nothing is kept of it
   * for that session.
   */
  abstract askStop(messageId: string, keyHash: Buffer): Promise<'stopping' | 'ended' | 'unknown'>;
  /**
   * Whether the turn's reply is stored `interrupted` in the session history: the replicas sweep
   * (`replicas.orphanAfterMs`) found the replica running it dead. Its frames will never end.
   */
  abstract interrupted(messageId: string, keyHash: Buffer): Promise<boolean>;
  /** Which of these running turns someone asked to stop. */
  abstract stopsAsked(messageIds: readonly string[]): Promise<string[]>;
  /** Deletes rows older than `ageMs` (at most `limit` of them); resolves with how many. */
  abstract sweep(ageMs: number, limit: number): Promise<number>;
  /**
   * `row` as a side row of the statement that stores its turn (see TurnSideRow): written in the
   * turn's own commit instead of a statement of its own. Undefined when this store cannot (its
   * table is not in the session store's database): the run is then appended after the turn.
   */
  sideRow(_row: TalkFramesRow): TurnSideRow | undefined {
    return undefined;
  }
}
