import { RestapBootstrapError } from './exceptions/restap-bootstrap.error';
import { resolveOptions } from './restap-options.resolver';
import type { RestapModuleOptions } from './interfaces/restap-options.interface';

const agent = { name: 'Agent' };
const failure = (options: unknown): string => {
  try {
    resolveOptions(options as RestapModuleOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(RestapBootstrapError);
    return (error as Error).message;
  }
  throw new Error('expected resolveOptions to throw');
};

describe('resolveOptions: defaults are filled in one place', () => {
  it('fills every default from the documented @default values', () => {
    const resolved = resolveOptions({ agent });
    expect(resolved.talk).toMatchObject({ enabled: true, streaming: true, sessions: true, maxMessageLength: 100_000, historyLimit: 50, heartbeatMs: 15_000, timeoutMs: 120_000, events: [] });
    expect(resolved.news).toEqual({
      enabled: true, scope: 'global', maxTypeLength: 200, defaultLimit: 100, maxLimit: 1000, contextLimit: 20,
      wakeups: 'auto', resyncMs: 5_000, maxWaiting: 5000, maxWaitingPerClient: 50,
    });
    expect(resolved.limits).toEqual({ bodyBytes: 1024 * 1024, maxJsonDepth: 64, lingeringCloseMs: 10_000, lingeringCloseBytes: 16 * 1024 * 1024 });
    expect(resolved.talk).toMatchObject({ maxStreams: 5000, maxStreamsPerClient: 50 });
    expect(resolved).toMatchObject({ rateLimit: false, shutdownGraceMs: 10_000, storage: { requireSynchronousCommit: false } });
    expect(resolved.cors).toBeUndefined();
    expect(resolved.catalogCacheControl).toBe('public, max-age=60');
    expect(resolved.playground).toEqual({ enabled: false, path: '/playground' });
  });

  it('the playground is served only when enabled, at /playground unless given a path', () => {
    expect(resolveOptions({ agent, playground: { enabled: true } }).playground).toEqual({ enabled: true, path: '/playground' });
    expect(resolveOptions({ agent, playground: { enabled: true, path: '/tools/agent-ui' } }).playground).toEqual({ enabled: true, path: '/tools/agent-ui' });
  });

  it('rate limit and CORS are off unless given, and copied when given', () => {
    const resolved = resolveOptions({ agent, rateLimit: { limit: 5, ttlMs: 1000 }, cors: { origins: ['https://a.example'] } });
    expect(resolved.rateLimit).toEqual({ limit: 5, ttlMs: 1000 });
    expect(resolved.cors).toEqual({ origins: ['https://a.example'], maxAgeSeconds: 600 });
  });

  it('talk: false and news: false disable the endpoints', () => {
    const resolved = resolveOptions({ agent, talk: false, news: false });
    expect([resolved.talk.enabled, resolved.news.enabled]).toEqual([false, false]);
  });

  it('defaultLimit never exceeds maxLimit', () => {
    expect(resolveOptions({ agent, news: { maxLimit: 50 } }).news.defaultLimit).toBe(50);
  });

  it("copies the caller's objects, so changing them later changes nothing", () => {
    const options: RestapModuleOptions = { agent: { name: 'A' }, packages: [{ name: 'P', type: 'sdk' }] };
    const resolved = resolveOptions(options);
    options.agent.name = 'B';
    (options.packages as Array<{ name: string }>)[0].name = 'Q';
    expect([resolved.agent.name, resolved.packages?.[0].name]).toEqual(['A', 'P']);
  });
});

describe('resolveOptions: invalid options fail startup with what to fix', () => {
  it.each([
    [undefined, 'RestapModule needs options'],
    [{ agent: { name: '  ' } }, 'agent.name is required'],
    [{ agent: { name: 'A', contact: 42 } }, 'agent.contact must be a string'],
    [{ agent, talk: { timeoutMs: 0 } }, 'option talk.timeoutMs must be a positive integer, got 0'],
    [{ agent, news: { maxLimit: 2.5 } }, 'option news.maxLimit must be a positive integer, got 2.5'],
    [{ agent, limits: { bodyBytes: -1 } }, 'option limits.bodyBytes must be a positive integer, got -1'],
    [{ agent, news: { scope: 'team' } }, `news.scope must be 'global' or 'session', got "team"`],
    [{ agent, packages: [{ type: 'sdk' }] }, 'packages[0] needs string "name" and "type"'],
    [{ agent, protocols: { mcp: { available: 'yes' } } }, 'protocols.mcp must be { available: boolean, endpoint?: string }'],
    [{ agent, talk: { events: ['not an event'] } }, 'talk.events has an invalid event name "not an event"'],
    [{ agent, talk: { maxStreams: 0 } }, 'talk.maxStreams must be a positive integer, got 0'],
    [{ agent, limits: { maxJsonDepth: 1.5 } }, 'limits.maxJsonDepth must be a positive integer'],
    [{ agent, limits: { lingeringCloseMs: 0 } }, 'limits.lingeringCloseMs must be a positive integer'],
    [{ agent, limits: { lingeringCloseBytes: 'big' } }, 'limits.lingeringCloseBytes must be a positive integer'],
    [{ agent, rateLimit: { limit: 0, ttlMs: 1000 } }, 'rateLimit.limit must be a positive integer, got 0'],
    [{ agent, rateLimit: 'on' }, 'rateLimit must be { limit, ttlMs } or false'],
    [{ agent, cors: { origins: '*' }, news: { scope: 'session' } }, "cors.origins is '*' while news.scope is 'session'"],
    [{ agent, cors: { origins: [''] } }, 'cors.origins must be a list of origins'],
    [{ agent, shutdownGraceMs: -5 }, 'shutdownGraceMs must be a positive integer, got -5'],
    [{ agent, playground: true }, 'playground must be { enabled?: boolean, path?: string }'],
    [{ agent, playground: { enabled: 'yes' } }, 'playground.enabled must be a boolean'],
    [{ agent, playground: { path: 'playground' } }, `playground.path must be a path such as '/playground'`],
    [{ agent, playground: { path: '/play/' } }, 'playground.path must be a path'],
    [{ agent, playground: { path: '/a/../etc' } }, 'playground.path must be a path'],
    [{ agent, playground: { path: '/' } }, 'playground.path must be a path'],
    [{ agent, news: { wakeups: 'redis' } }, "news.wakeups must be 'auto', 'in-process' or { listenUrl: 'postgres://…' }"],
    [{ agent, news: { wakeups: { listenUrl: 'mysql://x' } } }, "news.wakeups must be 'auto'"],
    [{ agent, news: { maxWaitingPerClient: 0 } }, 'news.maxWaitingPerClient must be a positive integer, got 0'],
    [{ agent, news: { resyncMs: 1.5 } }, 'news.resyncMs must be a positive integer'],
    [{ agent, rateLimit: { limit: 1, ttlMs: 1000, redis: 'localhost:6379' } }, 'rateLimit.redis must be a Redis URL'],
    [{ agent, rateLimit: { limit: 1, ttlMs: 1000, redis: 'redis://r', postgres: true } }, 'rateLimit: choose one of redis, postgres and storage'],
  ])('%j → %s', (options, message) => expect(failure(options)).toContain(message));
});

describe('resolveOptions: mcp (issue 15)', () => {
  it('is off by default at /mcp, and the catalog protocols are left as given', () => {
    const resolved = resolveOptions({ agent, protocols: { a2a: { available: false } } });
    expect(resolved.mcp).toEqual({ enabled: false, path: '/mcp', allowedOrigins: [] });
    expect(resolved.protocols).toEqual({ a2a: { available: false } });
  });

  it('enabled: protocols.mcp is derived from the option, whatever protocols said', () => {
    const resolved = resolveOptions({ agent, protocols: { mcp: { available: false } }, mcp: { enabled: true, path: '/agent/mcp' } });
    expect(resolved.protocols).toEqual({ mcp: { available: true, endpoint: '/agent/mcp' } });
  });

  it('refuses a path that is not a clean absolute path, and origins that are not strings', () => {
    expect(failure({ agent, mcp: { enabled: true, path: 'mcp' } })).toMatch(/mcp\.path/);
    expect(failure({ agent, mcp: { enabled: true, path: '/mcp/../x' } })).toMatch(/mcp\.path/);
    expect(failure({ agent, mcp: { enabled: 'yes' } })).toMatch(/mcp\.enabled/);
    expect(failure({ agent, mcp: { allowedOrigins: [''] } })).toMatch(/mcp\.allowedOrigins/);
  });
});

describe('resolveOptions: replicas (issue 32, items 9 and 15)', () => {
  it('heartbeat every 5 s, orphaned after 30 s by default; given values are kept', () => {
    expect(resolveOptions({ agent }).replicas).toEqual({ heartbeatMs: 5_000, orphanAfterMs: 30_000 });
    expect(resolveOptions({ agent, replicas: { heartbeatMs: 200, orphanAfterMs: 1_500 } }).replicas).toEqual({ heartbeatMs: 200, orphanAfterMs: 1_500 });
  });

  it('refuses an orphan window shorter than two heartbeats, and non-positive values', () => {
    expect(() => resolveOptions({ agent, replicas: { heartbeatMs: 1_000, orphanAfterMs: 1_500 } })).toThrow(/replicas.orphanAfterMs \(1500\) must be at least twice replicas.heartbeatMs \(1000\)/);
    expect(() => resolveOptions({ agent, replicas: { orphanAfterMs: 9_000 } })).toThrow(/at least twice/);
    expect(() => resolveOptions({ agent, replicas: { heartbeatMs: 0 } })).toThrow(/replicas.heartbeatMs must be a positive integer/);
  });
});

describe('resolveOptions: auth.oauth (issue 34)', () => {
  const oauth = { issuer: 'https://login.example.com/realms/agents', audience: 'https://agent.example.com' };

  it('is off by default; on, it fills the algorithm allow-list, the clock tolerance and the JWKS cache age', () => {
    expect(resolveOptions({ agent }).auth).toEqual({});
    expect(resolveOptions({ agent, auth: { oauth } }).auth.oauth).toEqual({
      ...oauth,
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      clockTolerance: 5,
      requiredScopes: {},
      jwksCacheMaxAgeMs: 600_000,
    });
    expect(resolveOptions({ agent, auth: { oauth: { ...oauth, requiredScopes: { 'text.reverse': ['text:reverse'] } } } }).auth.oauth?.requiredScopes).toEqual({ 'text.reverse': ['text:reverse'] });
  });

  it('refuses a missing or non-http issuer/audience, alg none or HS*, and scopes that are not scope tokens', () => {
    expect(failure({ agent, auth: { oauth: { audience: oauth.audience } } })).toMatch(/auth\.oauth\.issuer must be an http\(s\) URL/);
    expect(failure({ agent, auth: { oauth: { ...oauth, audience: 'agent' } } })).toMatch(/auth\.oauth\.audience/);
    expect(failure({ agent, auth: { oauth: { ...oauth, algorithms: ['none'] } } })).toMatch(/no 'none', no HS\*/);
    expect(failure({ agent, auth: { oauth: { ...oauth, algorithms: ['HS256'] } } })).toMatch(/no 'none', no HS\*/);
    expect(failure({ agent, auth: { oauth: { ...oauth, requiredScopes: { 'text.reverse': ['text reverse'] } } } })).toMatch(/scope tokens/);
    expect(failure({ agent, auth: { oauth: { ...oauth, clockTolerance: -1 } } })).toMatch(/clockTolerance/);
    expect(failure({ agent, auth: { oauth: { ...oauth, introspection: { clientId: 'agent' } } } })).toMatch(/introspection must be \{ clientId, clientSecret/);
    expect(resolveOptions({ agent, auth: { oauth: { ...oauth, introspection: { clientId: 'agent', clientSecret: 's' } } } }).auth.oauth?.introspection).toEqual({ clientId: 'agent', clientSecret: 's' });
  });
});
