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

/** Digits `integerOf` reads itself: any 15-digit integer is below 2^53, so each step of its sum is exact. */
const MAX_DIGITS = 15;

/**
 * The number a decimal integer's text stands for, as `Number(text)` gives it, for the text
 * node-postgres hands over for a bigint column (news ids and timestamps). Read digit by digit when
 * it is at most 15 digits and nothing else: `Number()` of such a text past 2^31 (every timestamp)
 * goes through V8's runtime, several times the instructions; anything else (a number or bigint from
 * another driver included) goes to `Number()`.
 *
 * @example
 * integerOf('1703012345000'); // 1703012345000
 */
export function integerOf(text: string | number | bigint): number {
  if (typeof text !== 'string') return Number(text);
  const length = text.length;
  if (length === 0 || length > MAX_DIGITS) return Number(text);
  let n = 0;
  for (let i = 0; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number(text);
    n = n * 10 + digit;
  }
  return n;
}
