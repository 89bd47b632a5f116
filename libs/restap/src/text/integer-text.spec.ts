import { integerText } from './integer-text';

describe('integerText', () => {
  it('writes what String() writes, at every boundary of its two halves', () => {
    const values = [0, 1, 9, 10, 99_999_999, 100_000_000, 100_000_001, 100_000_010, 199_999_999, 2 ** 31, 1_703_012_345_000, 1_700_000_000_007, Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < 1000; i++) values.push(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER));
    for (const n of values) expect(integerText(n)).toBe(String(n));
  });

  it('falls back to String() for what is no non-negative safe integer', () => {
    for (const n of [-1, -1_703_012_345_000, 1.5, 1e300, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity]) expect(integerText(n)).toBe(String(n));
  });
});
