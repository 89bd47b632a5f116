import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * How a row stands in its turn: more frames may follow (`open`), it closes the stored turn
 * (`final`), the turn went past the kept bounds (`cut`), or — the row with `first_id` 0, holding no
 * frame — someone asked for the turn to stop (`stop`).
 */
export type TalkFramesState = 'open' | 'final' | 'cut' | 'stop';

/**
 * A run of consecutive SSE frames of one /talk turn (event ids `first_id`..`last_id`), kept for
 * resumption (`talk.resume`). `frames` is a JSON array of `[event, data]` pairs, `data` the frame's
 * JSON text without any session_id; `key_hash` is the SHA-256 of the owning session_id, never the id.
 * The table is UNLOGGED (see its migration).
 */
@Entity({ name: 'restap_talk_frames' })
@Index('restap_talk_frames_created_idx', ['createdAt'])
export class RestapTalkFrameEntity {
  @PrimaryColumn({ name: 'message_id', type: 'text' })
  messageId: string;

  @PrimaryColumn({ name: 'first_id', type: 'integer' })
  firstId: number;

  @Column({ name: 'last_id', type: 'integer' })
  lastId: number;

  @Column({ name: 'key_hash', type: 'bytea' })
  keyHash: Buffer;

  @Column({ type: 'text' })
  frames: string;

  @Column({ type: 'text' })
  state: TalkFramesState;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
