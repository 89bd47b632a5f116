import { createHash } from 'node:crypto';
import { InvalidRequestException, InvalidSinceException } from '../../exceptions';
import { assertStorableText } from '../../text/storable-text';

/** Fields the server assigns; a client sending them is told so rather than silently overruled. */
const SERVER_FIELDS = ['timestamp', 'news_id'] as const;
const STRING_FIELDS = ['from', 'in_reply_to', 'message'] as const;
/** Visible ASCII, 1 to 255 characters: enough for a UUID or a ULID with a prefix. */
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const DIGITS = /^\d{1,16}$/;

/** A validated POST /news body. */
export interface ParsedNewsItem {
  type: string;
  /** Every field as sent, in the sender's order, less `session_id`. */
  fields: Record<string, unknown>;
}

/**
 * Validates a POST /news body: a JSON object with a non-empty string `type` of at most
 * `maxTypeLength` characters, optional string `from` / `in_reply_to` / `message`, any `data`,
 * and any other field, kept as sent. `session_id` is resolved elsewhere and removed here.
 *
 * @example
 * const { type, fields } = parseNewsItem(req.body, 200);
 */
export function parseNewsItem(body: unknown, maxTypeLength: number): ParsedNewsItem {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestException('The body must be a JSON object such as {"type": "reply", "message": "…"}.');
  }
  const fields = withoutSessionId(body as Record<string, unknown>);
  const { type } = fields;
  if (typeof type !== 'string' || !type.trim()) {
    throw new InvalidRequestException('type is required: a non-empty string such as "reply" or "job.completed".');
  }
  if (type.length > maxTypeLength) {
    throw new InvalidRequestException(`type is ${type.length} characters long; at most ${maxTypeLength} are accepted.`);
  }
  // `type` also goes to a text column; every other field stays inside the stored JSON, losslessly.
  assertStorableText(type, 'type');
  for (const field of STRING_FIELDS) {
    if (field in fields && typeof fields[field] !== 'string') {
      throw new InvalidRequestException(`${field} must be a string when present.`);
    }
  }
  for (const field of SERVER_FIELDS) {
    if (field in fields) {
      throw new InvalidRequestException(`${field} is assigned by the server: remove it from the body.`);
    }
  }
  return { type, fields };
}

/** The body's fields less `session_id`: the body itself when it has none (the usual case), else a copy. */
function withoutSessionId(body: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(body, 'session_id')) return body;
  const { session_id: _sessionId, ...fields } = body;
  return fields;
}

/** The `Idempotency-Key` header: absent, or 1–255 visible ASCII characters. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || !IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw new InvalidRequestException('Idempotency-Key must be one header of 1 to 255 visible ASCII characters, e.g. a UUID.');
  }
  return header;
}

/** GET /news `since`: absent (0) or a non-negative integer of milliseconds; else 400 invalid_since. */
export function parseSince(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'string' || !DIGITS.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidSinceException();
  }
  return Number(value);
}

/** Longest `wait` of GET /news, seconds. */
export const MAX_NEWS_WAIT_SECONDS = 30;

/** GET /news `wait`: absent (undefined: answer at once) or an integer of seconds from 1 to 30; else 400 invalid_request. */
export function parseWait(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const seconds = typeof value === 'string' && DIGITS.test(value) ? Number(value) : NaN;
  if (!(seconds >= 1 && seconds <= MAX_NEWS_WAIT_SECONDS)) {
    throw new InvalidRequestException(`wait must be an integer number of seconds from 1 to ${MAX_NEWS_WAIT_SECONDS}.`);
  }
  return seconds;
}

/** GET /news `limit`: absent (`fallback`) or an integer from 1 to `max`; else 400 invalid_request. */
export function parseLimit(value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const limit = typeof value === 'string' && DIGITS.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= max)) {
    throw new InvalidRequestException(`limit must be an integer from 1 to ${max}.`);
  }
  return limit;
}

/**
 * SHA-256 of an item with object keys sorted at every level: the same item resent with its keys
 * in another order or with other whitespace is the same request.
 */
export function requestHash(fields: Record<string, unknown>): Buffer {
  return createHash('sha256').update(canonicalJson(fields), 'utf8').digest();
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
