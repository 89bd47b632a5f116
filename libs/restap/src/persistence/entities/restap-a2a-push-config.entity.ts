import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One push-notification config of an A2A task (a webhook the task's updates are POSTed to). The
 * config is the A2A JSON the client sent (URL, token, authentication); it is readable by its owner
 * only, like the task.
 */
@Entity({ name: 'restap_a2a_push_configs' })
export class RestapA2aPushConfigEntity {
  /** The task the webhook follows. */
  @PrimaryColumn({ name: 'task_id', type: 'text' })
  taskId: string;

  /** SHA-256 of the identity that registered it (as restap_a2a_tasks.owner_hash). */
  @PrimaryColumn({ name: 'owner_hash', type: 'bytea' })
  ownerHash: Buffer;

  /** The config's id (the client's, or one the store drew). */
  @PrimaryColumn({ type: 'text' })
  id: string;

  /** The A2A version it was registered over ('1.0' or '0.3'): its deliveries are shaped for it. */
  @Column({ name: 'wire_version', type: 'text' })
  wireVersion: string;

  /** The TaskPushNotificationConfig as A2A JSON. */
  @Column({ type: 'json' })
  config: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
