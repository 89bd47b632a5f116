import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One running app instance (replica) and its heartbeat. An instance whose `last_seen` is older
 * than the orphan window (`replicas.orphanAfterMs`) is dead: the others end its open turns and tasks.
 */
@Entity({ name: 'restap_replicas' })
export class RestapReplicaEntity {
  /** Drawn at random when the instance starts. */
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'started_at', type: 'timestamptz', default: () => 'now()' })
  startedAt: Date;

  @Column({ name: 'last_seen', type: 'timestamptz', default: () => 'now()' })
  lastSeen: Date;
}
