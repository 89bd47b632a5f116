import { A2aCaller, ownerHashOf } from './a2a-caller';

describe('A2aCaller', () => {
  const session = 'sess_0123456789abcdefghij';

  it('its user name is a hash of the identity, never the identity', () => {
    const caller = new A2aCaller({ headers: {} }, 'key:secret-key');
    expect(caller.userName).toMatch(/^[0-9a-f]{64}$/);
    expect(caller.userName).not.toContain(Buffer.from('secret-key').toString('hex'));
    expect(caller.isAuthenticated).toBe(true);
    expect(caller.ownerHash.equals(ownerHashOf('key:secret-key'))).toBe(true);
  });

  it('seals a context id that only the same identity opens', () => {
    const box = new A2aCaller({ headers: {} }, 'key:alice').seal(session) as Buffer;
    expect(box.toString('utf8')).not.toContain(session);
    expect(new A2aCaller({ headers: {} }, 'key:alice').open(box)).toBe(session);
    expect(new A2aCaller({ headers: {} }, 'key:bob').open(box)).toBeUndefined();
    expect(new A2aCaller({ headers: {} }, undefined).open(box)).toBeUndefined();
  });

  it('without credentials there is nothing to seal with: no seal, one shared anonymous owner', () => {
    const anonymous = new A2aCaller({ headers: {} }, undefined);
    expect(anonymous.seal(session)).toBeNull();
    expect(anonymous.isAuthenticated).toBe(false);
    expect(anonymous.ownerHash.equals(new A2aCaller({ headers: {} }, undefined).ownerHash)).toBe(true);
    expect(anonymous.ownerHash.equals(ownerHashOf('key:'))).toBe(false);
  });
});
