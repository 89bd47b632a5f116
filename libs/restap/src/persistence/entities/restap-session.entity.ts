import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One conversation. The raw session_id is a bearer secret: only its SHA-256 is stored. */
@Entity({ name: 'restap_sessions' })
export class RestapSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('restap_sessions_key_hash_uq', { unique: true })
  @Column({ name: 'key_hash', type: 'bytea' })
  keyHash: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_active_at', type: 'timestamptz', default: () => 'now()' })
  lastActiveAt: Date;
}
