import { hash } from 'node:crypto';
import type { Request } from 'express';
import { SESSION_ID_HEADER, SESSION_ID_PATTERN } from '../restap.constants';
import { InvalidSessionIdException } from '../exceptions';
import { randomToken } from './random-token';

/** Where a request's session_id came from. */
export type SessionIdSource = 'header' | 'query' | 'body';

const ALL_SOURCES: readonly SessionIdSource[] = ['header', 'query', 'body'];

/**
 * Checks one raw session_id value. Spec, "Identifier format and entropy": outside
 * ^[A-Za-z0-9._-]{16,128}$ (or not a string) → 400 invalid_session_id.
 */
export function parseSessionId(value: unknown): string {
  if (typeof value !== 'string' || !SESSION_ID_PATTERN.test(value)) {
    throw new InvalidSessionIdException('session_id must be a string matching ^[A-Za-z0-9._-]{16,128}$.');
  }
  return value;
}

/**
 * The request's session_id, by precedence header > query > body (spec: "the header takes
 * precedence over a query parameter"). Every present value is validated, so a malformed one is
 * never silently shadowed. Returns undefined when none is given.
 */
export function resolveSessionId(req: Request, body?: unknown, sources: readonly SessionIdSource[] = ALL_SOURCES): string | undefined {
  let chosen: string | undefined;
  if (sources.includes('header')) {
    const header = req.headers[SESSION_ID_HEADER];
    if (header !== undefined) chosen = parseSessionId(Array.isArray(header) ? header : header.trim());
  }
  if (sources.includes('query') && req.url.includes('?')) {
    const query = req.query;
    if (query && 'session_id' in query) {
      const id = parseSessionId(query.session_id);
      chosen ??= id;
    }
  }
  if (sources.includes('body') && body && typeof body === 'object' && !Array.isArray(body) && 'session_id' in body) {
    const value = (body as { session_id?: unknown }).session_id;
    if (value !== undefined && value !== null) {
      const id = parseSessionId(value);
      chosen ??= id;
    }
  }
  return chosen;
}

/**
 * A new session_id: base64url of 24 random bytes (192 bits; the spec asks at least 122). One
 * starting with "-" is drawn again (~1 in 64): pasted after a command-line option such as
 * `restap talk --session <id>`, it would read as another option. Redrawing keeps the ids uniform
 * over the rest, at 191.9 bits.
 */
export function mintSessionId(): string {
  let id = randomToken(24);
  while (id.startsWith('-')) id = randomToken(24);
  return id;
}

/** SHA-256 of a session_id: the only form in which it is stored or compared. */
export function hashSessionId(sessionId: string): Buffer {
  // One-shot hash(): no Hash object per turn (Node >= 20.12, as `engines` asks).
  return hash('sha256', sessionId, 'buffer') as Buffer;
}
