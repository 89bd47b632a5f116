import { SESSION_ID_PATTERN } from '../restap.constants';
import { mintSessionId } from './session-id';

describe('mintSessionId (spec, "Identifier format and entropy")', () => {
  it('mints 32-character base64url ids that match the spec pattern, all different', () => {
    const ids = Array.from({ length: 10_000 }, () => mintSessionId());
    for (const id of ids) expect(id).toMatch(SESSION_ID_PATTERN);
    expect(ids.every((id) => id.length === 32)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('never starts an id with "-", which a command line would read as an option (1 in 64 would)', () => {
    const ids = Array.from({ length: 10_000 }, () => mintSessionId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
  });
});
