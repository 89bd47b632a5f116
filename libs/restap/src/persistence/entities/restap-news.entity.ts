import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One /news item. `feed` is 'global' or the hex SHA-256 of the session it belongs to; `ts` is the
 * item's `timestamp` (ms), strictly increasing per sequence in commit order (see NewsStore).
 */
@Entity({ name: 'restap_news' })
@Index('restap_news_feed_ts_uq', ['feed', 'ts'], { unique: true })
@Index('restap_news_ts_idx', ['ts'])
@Index('restap_news_idem_uq', ['feed', 'idempotencyKey'], { unique: true, where: 'idempotency_key IS NOT NULL' })
export class RestapNewsEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  feed: string;

  @Column({ type: 'bigint' })
  ts: string;

  @Column({ type: 'text' })
  type: string;

  /** The item as the client sent it (less session_id), kept as JSON text so it reads back unchanged. */
  @Column({ type: 'json' })
  body: Record<string, unknown>;

  @Column({ name: 'idempotency_key', type: 'text', nullable: true })
  idempotencyKey: string | null;

  @Column({ name: 'request_hash', type: 'bytea', nullable: true })
  requestHash: Buffer | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** Last timestamp handed out per sequence; its row lock orders writers (see NewsStore). */
@Entity({ name: 'restap_news_sequences' })
export class RestapNewsSequenceEntity {
  @Column({ primary: true, type: 'text' })
  sequence: string;

  @Column({ name: 'last_ts', type: 'bigint' })
  lastTs: string;
}
