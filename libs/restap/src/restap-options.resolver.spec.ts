import { RestapBootstrapError } from './exceptions/restap-bootstrap.error';
import { resolveOptions } from './restap-options.resolver';
import type { RestapModuleOptions } from './restap-options';

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
    // Issue 38, item 8: a capability run as a task may take 10 min, and its result stays readable 1 h.
    expect(resolved.capabilityTasks).toEqual({ timeoutMs: 600_000, ttlMs: 3_600_000 });
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
    [{ agent, capabilityTasks: { timeoutMs: 0 } }, 'capabilityTasks.timeoutMs must be a positive integer, got 0'],
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
    expect(resolved.mcp).toEqual({ enabled: false, path: '/mcp', allowedOrigins: [], sessions: false });
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

describe('resolveOptions: sessions for 2025-era MCP clients, the HTTP+JSON binding, push notifications (issue 38)', () => {
  it('mcp.sessions is off by default (stateless for every era); true takes the defaults', () => {
    expect(resolveOptions({ agent }).mcp.sessions).toBe(false);
    expect(resolveOptions({ agent, mcp: { sessions: true } }).mcp.sessions).toEqual({ ttlMs: 86_400_000, idleMs: 600_000, maxPerInstance: 1000 });
    expect(resolveOptions({ agent, mcp: { sessions: { idleMs: 5000 } } }).mcp.sessions).toMatchObject({ idleMs: 5000 });
    expect(failure({ agent, mcp: { sessions: { ttlMs: 0 } } })).toMatch(/mcp\.sessions\.ttlMs/);
  });

  it('a2a.restPath defaults to <path>/rest, follows a2a.path, and may be false', () => {
    expect(resolveOptions({ agent }).a2a.restPath).toBe('/a2a/rest');
    expect(resolveOptions({ agent, a2a: { path: '/agent' } }).a2a.restPath).toBe('/agent/rest');
    expect(resolveOptions({ agent, a2a: { restPath: false } }).a2a.restPath).toBe(false);
    expect(failure({ agent, a2a: { restPath: '/a2a' } })).toMatch(/a2a\.restPath/);
    expect(failure({ agent, a2a: { restPath: 'rest' } })).toMatch(/a2a\.restPath/);
  });

  it('a2a.pushNotifications is on with public webhooks only; allowHosts are normalised; false turns it off', () => {
    expect(resolveOptions({ agent }).a2a.pushNotifications).toEqual({ allowHosts: [], allowHttp: true, timeoutMs: 5000, retries: 3, retryBackoffMs: 500, maxConfigsPerTask: 10 });
    expect(resolveOptions({ agent, a2a: { pushNotifications: { allowHosts: [' Hooks.Internal ', '[::1]'] } } }).a2a.pushNotifications).toMatchObject({ allowHosts: ['hooks.internal', '::1'] });
    expect(resolveOptions({ agent, a2a: { pushNotifications: false } }).a2a.pushNotifications).toBe(false);
    expect(failure({ agent, a2a: { pushNotifications: { allowHosts: [''] } } })).toMatch(/allowHosts/);
    expect(failure({ agent, a2a: { pushNotifications: { retries: -1 } } })).toMatch(/retries/);
  });
});

describe('resolveOptions: the doors\' slices (issue 33, item 1)', () => {
  it('doorPaths names the enabled optional doors only, at their paths', () => {
    expect(resolveOptions({ agent }).doorPaths).toEqual({});
    expect(resolveOptions({ agent, mcp: { enabled: true, path: '/x/mcp' }, a2a: { enabled: true }, playground: { enabled: false } }).doorPaths).toEqual({ mcp: '/x/mcp', a2a: '/a2a' });
  });

  it('an enabled A2A door is advertised in protocols from its own option, like MCP and AG-UI', () => {
    expect(resolveOptions({ agent, protocols: { a2a: { available: false } }, a2a: { enabled: true, path: '/agent/a2a' } }).protocols).toEqual({ a2a: { available: true, endpoint: '/agent/a2a' } });
  });
});

describe('resolveOptions: agui (issue 39, item 1)', () => {
  it('is off by default at /ag-ui, and the catalog protocols are left as given', () => {
    const resolved = resolveOptions({ agent, protocols: { a2a: { available: false } } });
    expect(resolved.agui).toEqual({ enabled: false, path: '/ag-ui' });
    expect(resolved.protocols).toEqual({ a2a: { available: false } });
  });

  it('enabled: protocols.agui is derived from the option, beside protocols.mcp, whatever protocols said', () => {
    const resolved = resolveOptions({ agent, protocols: { agui: { available: false }, x: { available: true } }, agui: { enabled: true, path: '/agent/ag-ui' }, mcp: { enabled: true } });
    expect(resolved.protocols).toEqual({ x: { available: true }, mcp: { available: true, endpoint: '/mcp' }, agui: { available: true, endpoint: '/agent/ag-ui' } });
  });

  it('refuses a path that is not a clean absolute path, and an enabled that is not a boolean', () => {
    expect(failure({ agent, agui: { enabled: true, path: 'ag-ui' } })).toMatch(/agui\.path/);
    expect(failure({ agent, agui: { enabled: true, path: '/a/../x' } })).toMatch(/agui\.path/);
    expect(failure({ agent, agui: { enabled: 'yes' } as never })).toMatch(/agui\.enabled/);
    expect(failure({ agent, agui: 'on' as never })).toMatch(/option agui must be/);
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

describe('resolveOptions: approval (issue 35)', () => {
  it('defaults: approvals expire after 15 minutes; a caller is stored as a credential fingerprint, never the credential', () => {
    const { approval } = resolveOptions({ agent });
    expect(approval.ttlMs).toBe(15 * 60_000);
    expect(approval.require).toBeUndefined();
    const who = approval.identify({ headers: { authorization: 'Bearer s3cret-token' } });
    expect(who).toMatch(/^cred:[0-9a-f]{16}$/);
    expect(who).not.toContain('s3cret');
    expect(approval.identify({ headers: { 'x-api-key': 's3cret-token' } })).toBe(who);
    expect(approval.identify({ headers: {} })).toBe('anonymous');
  });

  it('takes require, ttlMs and identify (identify falling back to the fingerprint when it answers nothing)', () => {
    const require = (id: string): boolean => id === 'orders.cancel';
    const { approval } = resolveOptions({ agent, approval: { require, ttlMs: 60_000, identify: (c) => (c.headers['x-user'] as string | undefined) } });
    expect(approval.require).toBe(require);
    expect(approval.ttlMs).toBe(60_000);
    expect(approval.identify({ headers: { 'x-user': 'ada' } })).toBe('ada');
    expect(approval.identify({ headers: {} })).toBe('anonymous');
  });

  it('refuses what is not a function or a positive integer', () => {
    expect(failure({ agent, approval: { require: ['text.reverse'] } })).toMatch(/approval\.require must be a function/);
    expect(failure({ agent, approval: { ttlMs: 0 } })).toMatch(/approval\.ttlMs/);
    expect(failure({ agent, approval: 'yes' })).toMatch(/option approval must be/);
  });

  it('item 4: requestStateSecret (the MCP round-trip seal) is off by default, taken as a string or bytes of at least 32 bytes, refused shorter', () => {
    expect(resolveOptions({ agent }).approval.requestStateSecret).toBeUndefined();
    expect(resolveOptions({ agent, approval: { requestStateSecret: '' } }).approval.requestStateSecret).toBeUndefined();
    const text = 'x'.repeat(32);
    expect(resolveOptions({ agent, approval: { requestStateSecret: text } }).approval.requestStateSecret).toEqual(Buffer.from(text));
    const bytes = new Uint8Array(48).fill(7);
    expect(resolveOptions({ agent, approval: { requestStateSecret: bytes } }).approval.requestStateSecret).toEqual(Buffer.from(bytes));
    expect(failure({ agent, approval: { requestStateSecret: 'too-short' } })).toMatch(/approval\.requestStateSecret must be a string or bytes of at least 32 bytes/);
    expect(failure({ agent, approval: { requestStateSecret: 42 } })).toMatch(/approval\.requestStateSecret/);
  });
});

describe('resolveOptions: telemetry (issue 36, item 6: content only when opted in)', () => {
  it('captures no content by default; a non-boolean captureContent fails startup', () => {
    expect(resolveOptions({ agent }).telemetry).toEqual({ captureContent: false });
    expect(resolveOptions({ agent, telemetry: { captureContent: true } }).telemetry).toEqual({ captureContent: true });
    expect(failure({ agent, telemetry: { captureContent: 'yes' } })).toMatch(/telemetry\.captureContent/);
  });
});

describe('resolveOptions: talk.resume (issue 37)', () => {
  it('is off by default; true takes every documented default', () => {
    expect(resolveOptions({ agent }).talk.resume).toBe(false);
    expect(resolveOptions({ agent, talk: { resume: true } }).talk.resume).toEqual({ graceMs: 300_000, maxFrames: 10_000, maxBytes: 1_048_576, flushMs: 200, pollMs: 250, retryMs: 1_000 });
    expect(resolveOptions({ agent, talk: { resume: { graceMs: 0, flushMs: 50 } } }).talk.resume).toMatchObject({ graceMs: 0, flushMs: 50, pollMs: 250 });
  });

  it('needs sessions and streaming: a stream is resumed with the session_id that owns it', () => {
    expect(failure({ agent, talk: { resume: true, sessions: false } })).toMatch(/talk\.resume needs talk\.sessions and talk\.streaming/);
    expect(failure({ agent, talk: { resume: true, streaming: false } })).toMatch(/talk\.resume needs/);
  });

  it.each([[{ flushMs: 0 }], [{ pollMs: -1 }], [{ maxFrames: 1.5 }], [{ retryMs: Number.NaN }]])('refuses %j with the option named', (given) => {
    expect(failure({ agent, talk: { resume: given } })).toMatch(new RegExp(`talk\\.resume\\.${Object.keys(given)[0]} must be an integer`));
  });

  it('refuses a value that is not true, false or an object', () => {
    expect(failure({ agent, talk: { resume: 'yes' } })).toMatch(/talk\.resume must be true, false or an object/);
  });
});

describe('resolveOptions: auth.oauth (issue 34)', () => {
  const oauth = { issuer: 'https://login.example.com/realms/agents', audience: 'https://agent.example.com' };

  it('issue 34 follow-up: OAuth and stateful MCP sessions go together (each session is bound to its subject)', () => {
    const resolved = resolveOptions({ agent, auth: { oauth }, mcp: { enabled: true, sessions: true } });
    expect(resolved.auth.oauth?.issuer).toBe(oauth.issuer);
    expect(resolved.mcp.sessions).toMatchObject({ ttlMs: 86_400_000 });
  });

  it('issue 34 follow-up: auth.oauth.playgroundClientId is kept as given; an empty or non-string one stops startup', () => {
    expect(resolveOptions({ agent, auth: { oauth } }).auth.oauth?.playgroundClientId).toBeUndefined();
    expect(resolveOptions({ agent, auth: { oauth: { ...oauth, playgroundClientId: 'restap-playground' } } }).auth.oauth?.playgroundClientId).toBe('restap-playground');
    expect(failure({ agent, auth: { oauth: { ...oauth, playgroundClientId: '' } } })).toMatch(/auth\.oauth\.playgroundClientId must be/);
    expect(failure({ agent, auth: { oauth: { ...oauth, playgroundClientId: 42 as unknown as string } } })).toMatch(/auth\.oauth\.playgroundClientId must be/);
  });

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
