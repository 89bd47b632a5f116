import { CONFORMANCE_CHECKS } from '.';

describe('CONFORMANCE_CHECKS', () => {
  it('has unique ids of the form <group>.<rule>', () => {
    const ids = CONFORMANCE_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const check of CONFORMANCE_CHECKS) expect(check.id.startsWith(`${check.group}.`)).toBe(true);
  });

  it('quotes the spec for every rule and explains every optional one', () => {
    for (const check of CONFORMANCE_CHECKS) {
      expect(check.spec.length).toBeGreaterThan(20);
      expect(['MUST', 'SHOULD']).toContain(check.level);
    }
  });

  it('covers every group of the spec', () => {
    expect(new Set(CONFORMANCE_CHECKS.map((c) => c.group))).toEqual(new Set(['discovery', 'talk', 'negotiation', 'sse', 'sessions', 'news', 'news-session', 'protocols']));
  });
});
