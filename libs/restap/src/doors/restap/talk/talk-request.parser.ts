import type { Request } from 'express';
import { InvalidRequestException } from '../../../exceptions';
import { resolveSessionId } from '../../../sessions/session-id';
import { checkTurnMessage } from '../../../core/talk/turn-message.rule';
import type { ApprovalAnswer } from '../../../core/approvals/approval.types';

/** A validated POST /talk request body. */
export interface TalkRequest {
  message: string;
  /** The session_id the client sent (header > query > body), already validated. */
  sessionId?: string;
  /** The extension field `approval` (docs/approvals.md), validated. */
  approval?: ApprovalAnswer;
}

const EXAMPLE = 'send {"message": "<your message>"}';

/**
 * Validates `{message, session_id?}` (unknown fields ignored). `message`: a string that passes the
 * turn rule every door shares (`checkTurnMessage`: not blank, at most `maxLength` code points,
 * storable). `session_id` comes from the Restap-Session-Id header, else the `session_id` query
 * parameter, else the body; any malformed value in any of them is a 400 invalid_session_id
 * whatever the format asked for (JSON or SSE).
 */
export function parseTalkRequest(req: Request, maxLength: number): TalkRequest {
  const body: unknown = req.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestException(`The request body must be a JSON object: ${EXAMPLE}.`);
  }
  const { message } = body as { message?: unknown };
  if (message === undefined || message === null) {
    throw new InvalidRequestException(`Field "message" is required: ${EXAMPLE}.`);
  }
  if (typeof message !== 'string') {
    throw new InvalidRequestException(`Field "message" must be a string, got ${describe(message)}.`);
  }
  checkTurnMessage(message, maxLength);
  const sessionId = resolveSessionId(req, body);
  const approval = parseApproval((body as { approval?: unknown }).approval);
  return { message, sessionId, approval };
}

/**
 * The optional `approval` field: exactly `{"id": "apr_…", "decision": "approve" | "deny"}`. Anything
 * more is refused, so that nothing sent with the answer (arguments above all) can change the call.
 */
function parseApproval(value: unknown): ApprovalAnswer | undefined {
  if (value === undefined) return undefined;
  const shape = 'Field "approval" must be {"id": "apr_…", "decision": "approve" | "deny"}';
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InvalidRequestException(`${shape}, got ${describe(value)}.`);
  const extra = Object.keys(value).filter((k) => k !== 'id' && k !== 'decision');
  if (extra.length) throw new InvalidRequestException(`${shape}; it cannot carry ${extra.map((k) => JSON.stringify(k)).join(', ')}: an approved call runs with the arguments shown, nothing else.`);
  const { id, decision } = value as { id?: unknown; decision?: unknown };
  if (typeof id !== 'string' || !id) throw new InvalidRequestException(`${shape}: "id" is missing.`);
  if (decision !== 'approve' && decision !== 'deny') throw new InvalidRequestException(`${shape}: "decision" is ${JSON.stringify(decision) ?? 'missing'}.`);
  return { id, decision };
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}
