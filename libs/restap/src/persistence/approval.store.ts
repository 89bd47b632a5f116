/** Token of the approvals' storage (TypeOrmApprovalStore by default). */
export const RESTAP_APPROVAL_STORE = Symbol('RESTAP_APPROVAL_STORE');

/** The decision a person gives. */
export type ApprovalDecision = 'approved' | 'denied';

/** A pending approval to store. */
export interface NewApproval {
  id: string;
  /** SHA-256 of the session; null for a sessionless door. */
  sessionHash: Buffer | null;
  door: string;
  capability: string;
  /** The exact arguments, as JSON. */
  arguments: string;
  toolName?: string;
  toolCallId?: string;
  question: string;
  requestedBy: string;
  /** Expires this long after the database's now(), ms (one clock for every replica). */
  ttlMs: number;
}

/** An approval as stored. */
export interface ApprovalRecord {
  id: string;
  door: string;
  capability: string;
  arguments: string;
  toolName: string | null;
  toolCallId: string | null;
  question: string;
  requestedBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** True when expires_at has passed by the database's clock. */
  expired: boolean;
  decision: ApprovalDecision | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  resultOk: boolean | null;
  result: string | null;
}

/** Where approvals live; every replica shares it. */
export interface ApprovalStore {
  create(approval: NewApproval): Promise<ApprovalRecord>;
  /**
   * Decides a pending, unexpired approval of that session (null: sessionless) in one conditional
   * UPDATE: of any number of racing requests on any replicas, exactly one gets the record back;
   * the others get undefined.
   */
  decide(id: string, sessionHash: Buffer | null, decision: ApprovalDecision, decidedBy: string): Promise<ApprovalRecord | undefined>;
  /** The approval of that id in that session (null: sessionless), whatever its state. */
  find(id: string, sessionHash: Buffer | null): Promise<ApprovalRecord | undefined>;
  /** The session's pending, unexpired approvals, oldest first, at most `limit`. */
  pending(sessionHash: Buffer, limit: number): Promise<ApprovalRecord[]>;
  /** Keeps what an approved call gave (audit). */
  recordResult(id: string, ok: boolean, result: string): Promise<void>;
}
