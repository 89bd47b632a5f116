import type { A2aDoorOptions } from './a2a.options';
import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';
import { resolveOptions } from '../../restap-options.resolver';
import type { RestapModuleOptions } from '../../restap-options';

const agent = { name: 'Agent' };
const a2aOf = (a2a: unknown) => resolveOptions({ agent, a2a } as RestapModuleOptions).a2a;

describe('a2a option', () => {
  it('is off by default, at /a2a, version 1.0.0, no security schemes', () => {
    expect(resolveOptions({ agent }).a2a).toMatchObject({ enabled: false, path: '/a2a', version: '1.0.0', securitySchemes: {} });
  });

  it('refuses a path that is not absolute, or one under /.well-known', () => {
    for (const path of ['a2a', '/a2a/', '/.well-known/a2a', '/a b']) {
      expect(() => a2aOf({ enabled: true, path })).toThrow(RestapBootstrapError);
    }
    expect(a2aOf({ enabled: true, path: '/agents/a2a' }).path).toBe('/agents/a2a');
  });

  it('refuses a baseUrl with a path, and drops a trailing slash', () => {
    expect(() => a2aOf({ enabled: true, baseUrl: 'https://agent.example.com/x' })).toThrow(/scheme and host/);
    expect(a2aOf({ enabled: true, baseUrl: 'https://agent.example.com/' }).baseUrl).toBe('https://agent.example.com');
  });

  it('caps a message at 64 parts and 100,000 characters by default; other caps must be positive integers (issue 32, item 2)', () => {
    expect(a2aOf({ enabled: true })).toMatchObject({ maxParts: 64, maxMessageChars: 100_000 });
    expect(a2aOf({ enabled: true, maxParts: 8, maxMessageChars: 1_000 })).toMatchObject({ maxParts: 8, maxMessageChars: 1_000 });
    for (const bad of [0, -1, 1.5, '64']) {
      expect(() => a2aOf({ enabled: true, maxParts: bad })).toThrow(/a2a\.maxParts must be a positive integer/);
      expect(() => a2aOf({ enabled: true, maxMessageChars: bad })).toThrow(/a2a\.maxMessageChars must be a positive integer/);
    }
  });

  describe('default identity: the caller\'s key, whichever header carried it', () => {
    const { identify } = a2aOf({ enabled: true });

    it('a bearer token and the same key as X-API-Key are one identity', () => {
      expect(identify({ headers: { authorization: 'Bearer k1' } })).toBe(identify({ headers: { 'x-api-key': 'k1' } }));
      expect(identify({ headers: { authorization: 'Bearer k1' } })).not.toBe(identify({ headers: { authorization: 'Bearer k2' } }));
    });

    it('another Authorization scheme is taken whole; no credentials, no identity', () => {
      expect(identify({ headers: { authorization: 'Basic YTpi' } })).toBe('authorization:Basic YTpi');
      expect(identify({ headers: {} })).toBeUndefined();
    });
  });
});
