import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One A2A task (the A2A door's task store). The task document is kept as A2A JSON with every
 * `contextId` blanked: a context id is a RESTAP session id, a bearer secret, so storage holds its
 * SHA-256 (`context_hash`, as restap_sessions does) and, for a caller with credentials, the id
 * sealed with a key derived from those credentials (`context_box`), which never reach storage.
 */
@Entity({ name: 'restap_a2a_tasks' })
@Index('restap_a2a_tasks_owner_idx', ['ownerHash', 'statusAt', 'id'])
@Index('restap_a2a_tasks_context_idx', ['contextHash', 'statusAt', 'id'])
@Index('restap_a2a_tasks_runner_idx', ['runner'], { where: 'runner IS NOT NULL' })
@Index('restap_a2a_tasks_expiry_idx', ['expiresAt'], { where: 'expires_at IS NOT NULL' })
export class RestapA2aTaskEntity {
  /** The A2A task id (a UUID the server drew). */
  @PrimaryColumn({ type: 'text' })
  id: string;

  /** SHA-256 of the identity that created the task: only that identity reads it. */
  @Column({ name: 'owner_hash', type: 'bytea' })
  ownerHash: Buffer;

  /** SHA-256 of the task's context id (= session id), like restap_sessions.key_hash. */
  @Column({ name: 'context_hash', type: 'bytea' })
  contextHash: Buffer;

  /** The context id sealed with AES-256-GCM under a key derived from the owner's credentials. */
  @Column({ name: 'context_box', type: 'bytea', nullable: true })
  contextBox: Buffer | null;

  /** TaskState name, e.g. TASK_STATE_WORKING. */
  @Column({ type: 'text' })
  state: string;

  /** When the current status was set: the list order. */
  @Column({ name: 'status_at', type: 'timestamptz' })
  statusAt: Date;

  /** The task as A2A JSON, context ids blanked. */
  @Column({ type: 'json' })
  task: unknown;

  /** The instance running the task while it is not final (see ReplicaAwareRequestHandler). */
  @Column({ type: 'text', nullable: true })
  runner: string | null;

  /** Set by an instance asked to cancel the task while another runs it; the runner stops it. */
  @Column({ name: 'cancel_requested', type: 'boolean', default: false })
  cancelRequested: boolean;

  /** `a2a` for an A2A task; `capability` for a capability call another door runs as a task (CapabilityTasks). */
  @Column({ type: 'text', default: 'a2a' })
  kind: string;

  /** When a finished capability task may be forgotten (its TTL); null while it runs, and for A2A tasks. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
