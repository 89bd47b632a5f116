import type { Request } from 'express';
import { InvalidRequestException } from '../../../exceptions';
import { resolveSessionId } from '../../../sessions/session-id';
import { checkTurnMessage } from '../../../core/talk/turn-message.rule';

/** A validated POST /talk request body. */
export interface TalkRequest {
  message: string;
  /** The session_id the client sent (header > query > body), already validated. */
  sessionId?: string;
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
  return sessionId === undefined ? { message } : { message, sessionId };
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}
