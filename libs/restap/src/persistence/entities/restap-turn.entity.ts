import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { RestapSessionEntity } from './restap-session.entity';
import type { TalkToolStep } from '../../interfaces/talk.interface';

export type TurnRole = 'user' | 'assistant';
/** `open`: stored when the turn starts, hidden from history until it ends; `interrupted`: its instance died first. */
export type TurnStatus = 'complete' | 'aborted' | 'error' | 'interrupted' | 'open';

/** One message of a conversation: the user's, or the agent's reply with how it ended. */
@Entity({ name: 'restap_turns' })
@Index('restap_turns_session_idx', ['sessionId', 'id'])
@Index('restap_turns_open_idx', ['runner'], { where: "status = 'open'" })
export class RestapTurnEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'session_id', type: 'uuid' })
  sessionId: string;

  @ManyToOne(() => RestapSessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id' })
  session?: RestapSessionEntity;

  @Column({ name: 'message_id', type: 'text' })
  messageId: string;

  @Column({ type: 'text' })
  role: TurnRole;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'text', default: 'complete' })
  status: TurnStatus;

  /** The instance (restap_replicas.id) running the turn, while it is `open`; null once it ended. */
  @Column({ type: 'text', nullable: true })
  runner: string | null;

  /** The tool calls an assistant reply made, with their results (OpenAI replay); null when none. */
  @Column({ name: 'tool_steps', type: 'jsonb', nullable: true })
  toolSteps: TalkToolStep[] | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
