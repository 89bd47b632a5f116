/** Longest log line a door writes about what a client sent or an SDK said, in characters. */
export const LOG_LINE_MAX = 300;

/**
 * One log line of `text`: line breaks and other control characters become spaces, and the rest is
 * cut at `max` characters (marked with `…`). For messages that may quote request data (header
 * values, bodies) or carry an SDK's stack: they never span lines, forge entries or flood the log.
 */
export function logLine(text: string, max = LOG_LINE_MAX): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
