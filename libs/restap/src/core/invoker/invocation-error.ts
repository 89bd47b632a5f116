import { STATUS_CODES } from 'node:http';
import type { InvocationFailure } from './invocation-result';

/** Longest error message handed back (a filter may have written a whole page). */
const MAX_MESSAGE = 2000;

/**
 * Reads an error response, whichever filter wrote it, as `{status, error, message}`: the RESTAP
 * shape (`{error, message}`) as it is; Nest's default (`{statusCode, message, error}`, where
 * `message` is the ValidationPipe's list) with the list joined and its error named in snake_case;
 * anything else by its status.
 */
export function toInvocationFailure(status: number, body: unknown): InvocationFailure {
  const fallback = snake(STATUS_CODES[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request'));
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const { error, message } = body as { error?: unknown; message?: unknown };
    const text = Array.isArray(message) ? message.map(String).join('; ') : typeof message === 'string' ? message : undefined;
    const code = typeof error === 'string' && error ? (/^[a-z0-9_]+$/.test(error) ? error : snake(error)) : fallback;
    return failure(status, code, text ?? (typeof error === 'string' ? error : JSON.stringify(body)));
  }
  if (typeof body === 'string' && body) return failure(status, fallback, body);
  return failure(status, fallback, STATUS_CODES[status] ?? `HTTP ${status}`);
}

export function failure(status: number, error: string, message: string): InvocationFailure {
  return { ok: false, status, error, message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message };
}

function snake(text: string): string {
  return text.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'error';
}
