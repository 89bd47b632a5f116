import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One approval asked of a person before a gated capability runs (see docs/approvals.md). Created
 * pending (`decision` null); decided once, by a conditional UPDATE that only one request can win.
 */
@Entity({ name: 'restap_approvals' })
@Index('restap_approvals_pending_idx', ['sessionHash', 'createdAt'], { where: 'decision IS NULL' })
export class RestapApprovalEntity {
  /** `apr_` + 24 random bytes, base64url: unguessable. */
  @PrimaryColumn({ type: 'text' })
  id: string;

  /** SHA-256 of the session it belongs to (like restap_sessions.key_hash); null for a sessionless door. */
  @Column({ name: 'session_hash', type: 'bytea', nullable: true })
  sessionHash: Buffer | null;

  /** The door that asked: talk, mcp or a2a. */
  @Column({ type: 'text' })
  door: string;

  @Column({ type: 'text' })
  capability: string;

  /** The exact arguments shown to the person, as JSON: what runs when approved, nothing else. */
  @Column({ type: 'text' })
  arguments: string;

  /** The model's tool name and call id (/talk), to replay the call to the model. */
  @Column({ name: 'tool_name', type: 'text', nullable: true })
  toolName: string | null;

  @Column({ name: 'tool_call_id', type: 'text', nullable: true })
  toolCallId: string | null;

  @Column({ type: 'text' })
  question: string;

  /** Who asked (approval.identify: never a credential). */
  @Column({ name: 'requested_by', type: 'text' })
  requestedBy: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** approved | denied; null while pending. */
  @Column({ type: 'text', nullable: true })
  decision: string | null;

  @Column({ name: 'decided_by', type: 'text', nullable: true })
  decidedBy: string | null;

  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true })
  decidedAt: Date | null;

  /** Whether the approved call succeeded, and the text of its result (as the model saw it). */
  @Column({ name: 'result_ok', type: 'boolean', nullable: true })
  resultOk: boolean | null;

  @Column({ type: 'text', nullable: true })
  result: string | null;
}
