import { SyntheticRequest } from './synthetic-http';
import type { CapabilityCallEvents, CapabilityLogLevel } from './capability-events.types';

export type { CapabilityCallEvents, CapabilityLogLevel };

const LEVELS: ReadonlySet<string> = new Set<CapabilityLogLevel>(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
const lastProgress = new WeakMap<object, number>();

/**
 * Reports how far a capability call has come, for a handler that takes `@Req() req`: an MCP client
 * that asked for progress (a `progressToken`) gets `notifications/progress`. `progress` must grow
 * with each report (MCP requires it; a report that does not is refused with a RangeError);
 * `total`, when known, is what it grows towards. A call that no door listens to (a plain HTTP
 * request, a door without progress) ignores it.
 *
 * @example
 * for (const [k, note] of notes.entries()) { await summarise(note); capabilityProgress(req, k + 1, notes.length, `Read "${note.title}"`); }
 */
export function capabilityProgress(req: object, progress: number, total?: number, message?: string): void {
  if (!Number.isFinite(progress)) throw new RangeError(`capabilityProgress: progress must be a finite number, got ${String(progress)}.`);
  if (total !== undefined && !Number.isFinite(total)) throw new RangeError(`capabilityProgress: total must be a finite number, got ${String(total)}.`);
  const events = req instanceof SyntheticRequest ? req.events : undefined;
  if (!events?.progress) return;
  const last = lastProgress.get(req);
  if (last !== undefined && progress <= last) throw new RangeError(`capabilityProgress: progress must grow with each report (${progress} after ${last}).`);
  lastProgress.set(req, progress);
  events.progress(progress, total, message);
}

/**
 * A log message of a capability call, for a handler that takes `@Req() req`: an MCP client that
 * asked for logs at that level (a 2025-era session's `logging/setLevel`, a 2026-07-28 request's
 * logLevel) gets it as `notifications/message`. `data` is any JSON value; never put a secret in it.
 * A call that no door listens to ignores it (log to the host's logger for those).
 */
export function capabilityLog(req: object, level: CapabilityLogLevel, data: unknown): void {
  if (!LEVELS.has(level)) throw new RangeError(`capabilityLog: unknown level ${JSON.stringify(level)}; use one of ${[...LEVELS].join(', ')}.`);
  const events = req instanceof SyntheticRequest ? req.events : undefined;
  events?.log?.(level, data);
}
