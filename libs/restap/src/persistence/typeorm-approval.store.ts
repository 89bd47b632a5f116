import { Injectable } from '@nestjs/common';
import { RestapSql, statement } from './restap-sql';
import type { ApprovalDecision, ApprovalRecord, ApprovalStore, NewApproval } from './approval.store';

const COLUMNS = `id, door, capability, arguments, tool_name, tool_call_id, question, requested_by, created_at, expires_at,
  expires_at <= now() AS expired, decision, decided_by, decided_at, result_ok, result`;

const CREATE = statement(
  `INSERT INTO restap_approvals (id, session_hash, door, capability, arguments, tool_name, tool_call_id, question, requested_by, expires_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + $10::int * interval '1 millisecond')
   RETURNING ${COLUMNS}`,
  'approval.create',
);

/** The one statement that decides: only a pending, unexpired row of that session matches, once. */
const DECIDE = statement(
  `UPDATE restap_approvals SET decision = $3, decided_by = $4, decided_at = now()
   WHERE id = $1 AND session_hash IS NOT DISTINCT FROM $2::bytea AND decision IS NULL AND expires_at > now()
   RETURNING ${COLUMNS}`,
  'approval.decide',
);

const FIND = statement(`SELECT ${COLUMNS} FROM restap_approvals WHERE id = $1 AND session_hash IS NOT DISTINCT FROM $2::bytea`, 'approval.find');

const PENDING = statement(
  `SELECT ${COLUMNS} FROM restap_approvals
   WHERE session_hash = $1 AND decision IS NULL AND expires_at > now()
   ORDER BY created_at, id LIMIT $2`,
  'approval.pending',
);

const RESULT = statement(`UPDATE restap_approvals SET result_ok = $2, result = $3 WHERE id = $1`, 'approval.result');

interface ApprovalRow {
  id: string;
  door: string;
  capability: string;
  arguments: string;
  tool_name: string | null;
  tool_call_id: string | null;
  question: string;
  requested_by: string;
  created_at: Date | string;
  expires_at: Date | string;
  expired: boolean;
  decision: ApprovalDecision | null;
  decided_by: string | null;
  decided_at: Date | string | null;
  result_ok: boolean | null;
  result: string | null;
}

/** Approvals in the host's PostgreSQL, through the module's statement runner. */
@Injectable()
export class TypeOrmApprovalStore implements ApprovalStore {
  constructor(private readonly sql: RestapSql) {}

  async create(a: NewApproval): Promise<ApprovalRecord> {
    const rows = await this.sql.query<ApprovalRow>(CREATE, [
      a.id, a.sessionHash, a.door, a.capability, a.arguments, a.toolName ?? null, a.toolCallId ?? null, a.question, a.requestedBy, a.ttlMs,
    ]);
    return recordOf(rows[0]);
  }

  async decide(id: string, sessionHash: Buffer | null, decision: ApprovalDecision, decidedBy: string): Promise<ApprovalRecord | undefined> {
    const rows = await this.sql.query<ApprovalRow>(DECIDE, [id, sessionHash, decision, decidedBy]);
    return rows[0] && recordOf(rows[0]);
  }

  async find(id: string, sessionHash: Buffer | null): Promise<ApprovalRecord | undefined> {
    const rows = await this.sql.query<ApprovalRow>(FIND, [id, sessionHash]);
    return rows[0] && recordOf(rows[0]);
  }

  async pending(sessionHash: Buffer, limit: number): Promise<ApprovalRecord[]> {
    return (await this.sql.query<ApprovalRow>(PENDING, [sessionHash, limit])).map(recordOf);
  }

  async recordResult(id: string, ok: boolean, result: string): Promise<void> {
    await this.sql.query(RESULT, [id, ok, result]);
  }
}

function recordOf(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    door: row.door,
    capability: row.capability,
    arguments: row.arguments,
    toolName: row.tool_name,
    toolCallId: row.tool_call_id,
    question: row.question,
    requestedBy: row.requested_by,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    expired: row.expired === true || (row.expired as unknown) === 't',
    decision: row.decision,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at),
    resultOk: row.result_ok,
    result: row.result,
  };
}
