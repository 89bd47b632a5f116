import fc from 'fast-check';
import { InvalidRequestException } from '../exceptions';
import { assertStorableJsonb, assertStorableText, STORABLE_TEXT_PATTERN, toStorableText, unstorableTextReason } from './storable-text';

describe('one rule for strings reaching storage (issue 21, item 4)', () => {
  it.each([
    ['t\u0000', 'a NUL (U+0000) character'],
    ['a\ud800', 'an unpaired UTF-16 surrogate (U+D800)'],
    ['\udc00b', 'an unpaired UTF-16 surrogate (U+DC00)'],
  ])('a text column refuses %j with 400 invalid_request naming the field', (value, reason) => {
    expect(unstorableTextReason(value)).toBe(reason);
    expect(() => assertStorableText(value, 'type')).toThrow(InvalidRequestException);
    expect(() => assertStorableText(value, 'type')).toThrow(`Field "type" must not contain ${reason}`);
  });

  it('well-formed text (astral characters, ZWJ sequences, controls other than NUL) is storable as is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')), (s) => {
        expect(() => assertStorableText(s, 'message')).not.toThrow();
        expect(toStorableText(s)).toBe(s);
      }),
    );
  });

  it('agent-produced text is made storable: NUL and unpaired surrogates become U+FFFD, pairs stay', () => {
    expect(toStorableText('a\u0000b\ud800c😀\udfff')).toBe('a\uFFFDb\uFFFDc😀\uFFFD');
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => expect(unstorableTextReason(toStorableText(s))).toBeUndefined()));
  });

  it('jsonb: a NUL in any key or string, at any depth, is refused naming its path', () => {
    expect(() => assertStorableJsonb({ a: [{ b: 'x\u0000' }] }, 'data')).toThrow('Field "data.a[0].b" must not contain a NUL');
    expect(() => assertStorableJsonb({ 'k\u0000': 1 }, 'data')).toThrow('A key in "data" contains a NUL');
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => assertStorableJsonb(deep, 'data')).toThrow(InvalidRequestException);
    expect(() => assertStorableJsonb({ ok: ['\ud800', 1, null] }, 'data')).not.toThrow();
  });
});

describe('STORABLE_TEXT_PATTERN', () => {
  const samples = ['', 'plain', 'é ü', '😀 pair', '\ud83d\ude00', 'a\u0000b', '\u0000', 'lone \ud800', 'lone \udc00 end', '\udc00\ud800', 'x\ud83d', '\ud83d\ude00\ud83d'];
  it.each(['', 'u'])('agrees with unstorableTextReason on every sample (flags %p)', (flags) => {
    const pattern = new RegExp(STORABLE_TEXT_PATTERN.source, flags);
    for (const value of samples) expect({ value, storable: pattern.test(value) }).toEqual({ value, storable: unstorableTextReason(value) === undefined });
  });
});

describe('the storable check without the pattern (isWellFormed and a NUL search)', () => {
  const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
  const pieces = ['a', 'é', '\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', ' ', '\u00ff', '\uffff'];
  it('agrees with the pattern on 5,000 random strings of NULs, lone and paired surrogates, one- and two-byte text', () => {
    const texts = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(texts, (value) => {
        expect(unstorableTextReason(value) === undefined).toBe(!unstorable.test(value));
        expect(toStorableText(value)).toBe(value.replace(new RegExp(unstorable.source, 'g'), '\uFFFD'));
      }),
      { numRuns: 5000 },
    );
  });
});
