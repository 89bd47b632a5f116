import fc from 'fast-check';
import { integerOf, integerText } from './integer-text';

describe('integerText', () => {
  it('writes what String() writes, at every boundary of its two halves', () => {
    const values = [0, 1, 9, 10, 99_999_999, 100_000_000, 100_000_001, 100_000_010, 199_999_999, 2 ** 31, 1_703_012_345_000, 1_700_000_000_007, Number.MAX_SAFE_INTEGER];
    for (const n of values) expect(integerText(n)).toBe(String(n));
    fc.assert(fc.property(fc.maxSafeNat(), (n) => expect(integerText(n)).toBe(String(n))), { numRuns: 1000 });
  });

  it('falls back to String() for what is no non-negative safe integer', () => {
    for (const n of [-1, -1_703_012_345_000, 1.5, 1e300, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity]) expect(integerText(n)).toBe(String(n));
  });
});

describe('integerOf', () => {
  it('reads what Number() reads, for the texts of non-negative integers up to 15 digits and past them', () => {
    const texts = ['0', '7', '007', '99999999', '2147483648', '1703012345000', '999999999999999', '1000000000000000', '9007199254740993', '99999999999999999999'];
    for (const text of texts) expect(integerOf(text)).toBe(Number(text));
    // Every length from 1 to 20 digits, leading zeros included.
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 20 });
    fc.assert(fc.property(digits, (text) => expect(integerOf(text)).toBe(Number(text))), { numRuns: 2000 });
  });

  it('falls back to Number() for any other text', () => {
    for (const text of ['', ' 1', '1 ', '-1', '+1', '1.5', '1e3', '0x10', '12a', 'abc', '\u0661']) expect(integerOf(text)).toBe(Number(text));
    // Another driver may hand over a number or a bigint for a bigint column.
    expect(integerOf(1703012345000)).toBe(1703012345000);
    expect(integerOf(1703012345000n)).toBe(1703012345000);
  });
});
