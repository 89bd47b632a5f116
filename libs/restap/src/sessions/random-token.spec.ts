import { randomToken } from './random-token';

describe('randomToken (session ids and message ids: spec, "Identifier format and entropy")', () => {
  it('gives base64url of the asked number of bytes (24 bytes → 32 characters, 192 bits)', () => {
    expect(randomToken(24)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(randomToken(12)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('never hands out the same bytes twice, across many refills of its pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(randomToken(24)); // ~117 refills of the 4 KiB pool
    expect(seen.size).toBe(20_000);
  });

  it('spreads its characters evenly (no stuck or zeroed bytes)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4_000; i++) for (const c of randomToken(24)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(64);
    const expected = (4_000 * 32) / 64;
    for (const n of counts.values()) expect(Math.abs(n - expected)).toBeLessThan(expected * 0.2);
  });

  it('refuses more bytes than its pool holds', () => {
    expect(() => randomToken(4097)).toThrow(RangeError);
  });
});
