import type { IncomingMessage } from 'node:http';

/**
 * True when an uncompressed body's Content-Length already says it is over `max` bytes (as
 * body-parser checks it). body-parser would then read and drop the whole declared body before
 * answering: the doors answer 413 at once instead (and close lingering, see lingering-close.ts).
 */
export function declaredTooLarge(req: IncomingMessage, max: number): boolean {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const length = Number(req.headers['content-length']);
  return encoding === 'identity' && Number.isFinite(length) && length > max;
}
