import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request } from 'express';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { OAuthResource } from './oauth-resource';
import { signedAs, signingInputOf, tokenKeyOf, VerifiedTokenMemo } from './verified-token-memo';
import { resolveOptions } from '../../../restap-options.resolver';
import type { RestapRegistry } from '../../../core/registry/restap.registry';

describe('VerifiedTokenMemo (issue 41: JWT verification memoised per token)', () => {
  it('refuses an entry once its token has expired (exp checked on every use), and forgets it', () => {
    let now = 1_000_000;
    const memo = new VerifiedTokenMemo<string>(10, () => now);
    memo.set('k', 'claims', now / 1000 + 2, 60_000);
    expect(memo.get('k')).toBe('claims');
    now += 2_000;
    expect(memo.get('k')).toBeUndefined();
    expect(memo.count).toBe(0);
  });

  it('keeps an entry no longer than maxAgeMs (the issuer\'s keys\' cache age), whatever its exp', () => {
    let now = 1_000_000;
    const memo = new VerifiedTokenMemo<string>(10, () => now);
    memo.set('k', 'claims', now / 1000 + 3600, 5_000);
    now += 4_999;
    expect(memo.get('k')).toBe('claims');
    now += 1;
    expect(memo.get('k')).toBeUndefined();
  });

  it('forgets an entry verified against another key set than the one in use (the issuer rotated its keys)', () => {
    const memo = new VerifiedTokenMemo<string>(10, () => 0);
    memo.set('k', 'claims', 3600, 60_000, 1);
    expect(memo.get('k', 1)).toBe('claims');
    expect(memo.get('k', 2)).toBeUndefined();
    expect(memo.get('k', 1)).toBeUndefined();
  });

  it('never remembers a token already expired', () => {
    const memo = new VerifiedTokenMemo<string>(10, () => 10_000);
    memo.set('k', 'claims', 10, 60_000);
    expect(memo.count).toBe(0);
  });

  it('is bounded: past its size the least recently used entry goes first', () => {
    const memo = new VerifiedTokenMemo<number>(3, () => 0);
    for (const k of [1, 2, 3]) memo.set(`t${k}`, k, 3600, 60_000);
    expect(memo.get('t1')).toBe(1); // t1 used: t2 is now the least recently used
    memo.set('t4', 4, 3600, 60_000);
    expect(memo.count).toBe(3);
    expect(memo.get('t2')).toBeUndefined();
    expect([memo.get('t1'), memo.get('t3'), memo.get('t4')]).toEqual([1, 3, 4]);
  });

  it('keys a token by its signature\'s SHA-256, not the token itself; a hit needs its signing input too', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';
    expect(tokenKeyOf(token)).not.toContain('c2lnbmF0dXJl');
    expect(tokenKeyOf(token)).toHaveLength(44);
    expect(tokenKeyOf(token)).toBe(tokenKeyOf(token));
    expect(tokenKeyOf(token)).not.toBe(tokenKeyOf(`${token}x`));
    const signed = signingInputOf(token);
    expect(signed).toBe('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0');
    expect(signedAs(token, signed)).toBe(true);
    const otherPayload = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJiIn0.c2lnbmF0dXJl';
    expect(tokenKeyOf(otherPayload)).toBe(tokenKeyOf(token));
    expect(signedAs(otherPayload, signed)).toBe(false);
    expect(signedAs('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0x.c2lnbmF0dXJl', signed)).toBe(false);
  });
});

describe('OAuthResource with the memo, against an issuer on loopback (issue 41)', () => {
  let server: http.Server;
  let issuer: string;
  let privateKey: CryptoKey;
  let jwksFetches = 0;
  let jwk: Record<string, unknown>;
  const audience = 'http://agent.test';

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = http.createServer((req, res) => {
      const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/.well-known/oauth-authorization-server') return send({ issuer, jwks_uri: `${issuer}/jwks` });
      if (req.url === '/jwks') {
        jwksFetches++;
        return send({ keys: [jwk] });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const resource = () => new OAuthResource(resolveOptions({ agent: { name: 'Agent' }, auth: { oauth: { issuer, audience, clockTolerance: 0 } } }), { getCapabilities: () => [] } as unknown as RestapRegistry);
  const sign = (sub: string, expSeconds: number, key = privateKey, kid = 'k1') =>
    new SignJWT({ scope: 'a b', client_id: 'c' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(expSeconds)
      .sign(key);
  const memoOf = (r: OAuthResource) => (r as unknown as { verified: VerifiedTokenMemo<unknown> }).verified;
  const request = (token: string) => ({ headers: { authorization: `Bearer ${token}` } }) as Request;

  it('RFC 6750 §3.1 invalid_token: a memoised token that has expired since is refused ("it has expired"), and forgotten', async () => {
    const r = resource();
    const token = await sign('u1', Math.floor(Date.now() / 1000) + 2);
    await r.authenticate(request(token));
    await r.authenticate(request(token));
    expect(memoOf(r).count).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, (Math.floor(Date.now() / 1000) + 2) * 1000 - Date.now()) + 1100));
    await expect(r.authenticate(request(token))).rejects.toMatchObject({ message: expect.stringContaining('expired') });
    expect(memoOf(r).count).toBe(0);
  });

  it('remembers each distinct token apart, by its signature\'s hash and signing input (never the token), and verifies a repeated token from the memo (same caller, no key fetch)', async () => {
    const r = resource();
    const exp = Math.floor(Date.now() / 1000) + 600;
    const [a, b] = await Promise.all([sign('alice', exp), sign('bob', exp)]);
    const first = request(a);
    await r.authenticate(first);
    const fetches = jwksFetches;
    const again = request(a);
    await r.authenticate(again);
    const other = request(b);
    await r.authenticate(other);
    expect(memoOf(r).count).toBe(2);
    expect(jwksFetches).toBe(fetches);
    const holder = request(a) as Request & { user?: { sub?: string }; auth?: { token: string } };
    await r.authenticate(holder);
    expect(holder.user?.sub).toBe('alice');
    expect(holder.auth?.token).toBe(a);
    expect((other as Request & { user?: { sub?: string } }).user?.sub).toBe('bob');
    const stored = JSON.stringify([...(memoOf(r) as unknown as { entries: Map<string, unknown> }).entries]);
    expect(stored).not.toContain(a);
    expect(stored).not.toContain(a.split('.')[2]);
    expect([...(memoOf(r) as unknown as { entries: Map<string, unknown> }).entries.keys()]).toEqual([tokenKeyOf(b), tokenKeyOf(a)]);
  });

  it('ties a remembered token\'s caller at once (no promise), with the fields, key order and values of a verified one', async () => {
    const r = resource();
    const token = await sign('carol', Math.floor(Date.now() / 1000) + 600);
    await r.authenticate(request(token)); // the first fetches the keys: not remembered
    const verified = request(token) as Request & Record<string | symbol, unknown>;
    await r.authenticate(verified);
    const remembered = request(token) as Request & Record<string | symbol, unknown>;
    expect(r.authenticate(remembered)).toBeUndefined();
    const fields = (req: Record<string | symbol, unknown>) => [req.auth, req.user, ...Object.getOwnPropertySymbols(req).map((s) => req[s])];
    expect(fields(remembered).map((f) => Object.keys(f as object))).toEqual(fields(verified).map((f) => Object.keys(f as object)));
    expect(fields(remembered)).toEqual(fields(verified));
    expect(remembered.user).not.toBe(verified.user);
    expect((remembered.auth as { token: string }).token).toBe(token);
  });

  it('RFC 6750 §3.1 invalid_token: after the issuer rotates its key (unknown kid → JWKS fetched again), a memoised token of the withdrawn key is refused', async () => {
    const r = resource();
    const exp = Math.floor(Date.now() / 1000) + 600;
    const old = await sign('u3', exp);
    await r.authenticate(request(old)); // fetches the keys
    await r.authenticate(request(old));
    expect(memoOf(r).count).toBe(1);
    const next = await generateKeyPair('RS256', { extractable: true });
    const previous = jwk;
    jwk = { ...(await exportJWK(next.publicKey)), kid: 'k2', alg: 'RS256', use: 'sig' };
    try {
      await new Promise((resolve) => setTimeout(resolve, 5_100)); // jose's cooldown between two fetches (JWKS_COOLDOWN_MS)
      await r.authenticate(request(await sign('u4', exp, next.privateKey, 'k2')));
      await expect(r.authenticate(request(old))).rejects.toMatchObject({ message: expect.stringContaining('no key') });
    } finally {
      jwk = previous;
    }
  });

  it('a tampered token is refused even when the genuine one is memoised (the hash covers the signature)', async () => {
    const r = resource();
    const token = await sign('u2', Math.floor(Date.now() / 1000) + 600);
    await r.authenticate(request(token)); // the first fetches the keys: a verification that straddles a fetch is not remembered
    await r.authenticate(request(token));
    expect(memoOf(r).count).toBe(1);
    const [h, p, s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'admin' })).toString('base64url');
    await expect(r.authenticate(request(`${h}.${forged}.${s}`))).rejects.toMatchObject({ message: expect.stringContaining('signature') });
    expect(memoOf(r).count).toBe(1);
  });
});
