/** 10^8: below it an integer is a small integer (Smi) to V8, and so is the high part of a timestamp. */
const LOW = 100_000_000;

/**
 * The decimal text of a number, as `String(n)` writes it, for the millisecond timestamps of
 * /news: written in two Smi-sized halves. On Node 20, `String(n)` of a number past 2^31 (every
 * `ts`) goes through V8's number-to-string cache, which lives in the old generation and so
 * promotes each new string it holds; in two halves the same text dies young (the measurement:
 * BENCHMARKS.md, "Measurements behind the code").
 *
 * @example
 * integerText(1703012345000); // '1703012345000'
 */
export function integerText(n: number): string {
  if (!Number.isSafeInteger(n) || n < LOW) return String(n);
  const high = Math.floor(n / LOW);
  return `${high}${String(n - high * LOW + LOW).slice(1)}`;
}
