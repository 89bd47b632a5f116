import fc from 'fast-check';
import { isoTimestamp } from './iso-timestamp';

describe('isoTimestamp', () => {
  it('writes what toISOString() writes, within an hour and across hours, years and the epoch', () => {
    const base = Date.UTC(2026, 11, 5, 21, 0, 0, 0);
    const values = [0, -1, -3_600_000, -3_600_001, 1, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, base, base + 1, base + 3_599_999, base + 3_600_000, base - 1];
    values.push(Date.UTC(275760, 8, 13), -8.64e15, Date.UTC(10000, 0, 1), Date.UTC(-1, 0, 1, 0, 59, 59, 999), Date.UTC(1999, 11, 31, 23, 59, 59, 999));
    for (const t of values) expect(isoTimestamp(new Date(t))).toBe(new Date(t).toISOString());
    const near = fc.integer({ min: base, max: base + 7_200_000 });
    const anyTime = fc.integer({ min: -8.64e15, max: 8.64e15 });
    fc.assert(fc.property(fc.oneof(near, anyTime), (t) => expect(isoTimestamp(new Date(t))).toBe(new Date(t).toISOString())), { numRuns: 4000 });
  });

  it('throws toISOString()’s RangeError for an invalid date', () => {
    isoTimestamp(new Date(Date.UTC(2026, 0, 1)));
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
