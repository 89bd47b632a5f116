const HOUR_MS = 3_600_000;

/** The hour last written: its start (ms since the epoch) and its text up to the minutes (`2026-12-05T21:`). */
let hourStart = Number.NaN;
let hourText = '';

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/**
 * `date.toISOString()`, the text up to the hour made once per hour and the rest written here (the
 * turn rows' `created_at`; toISOString itself is a C++ builtin call each time). An invalid date
 * throws the same RangeError.
 *
 * @example
 * isoTimestamp(new Date(1764970937123)); // '2025-12-05T21:42:17.123Z'
 */
export function isoTimestamp(date: Date): string {
  const t = date.getTime();
  let inHour = t - hourStart;
  if (!(inHour >= 0 && inHour < HOUR_MS)) {
    const text = date.toISOString();
    inHour = ((t % HOUR_MS) + HOUR_MS) % HOUR_MS;
    hourStart = t - inHour;
    hourText = text.slice(0, -10);
    return text;
  }
  const ms = inHour % 1000;
  const seconds = (inHour - ms) / 1000;
  const s = seconds % 60;
  return `${hourText}${pad2((seconds - s) / 60)}:${pad2(s)}.${ms < 10 ? `00${ms}` : ms < 100 ? `0${ms}` : `${ms}`}Z`;
}
