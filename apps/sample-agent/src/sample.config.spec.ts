import { DEFAULT_RATE_LIMIT_PER_MINUTE, sampleConfigFromEnv } from './sample.config';
import { redactUrl } from './http/access-log.middleware';

describe('Sample configuration from the environment (issue 6: limits, auth, shutdown)', () => {
  it('defaults: rate limit on at the documented default, no API key, module defaults for streams and heartbeats', () => {
    const config = sampleConfigFromEnv({});
    expect(config).toMatchObject({ newsScope: 'global', bench: false, rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE, accessLog: false, playground: true, agui: true });
    expect(config).not.toHaveProperty('apiKey');
    expect(config).not.toHaveProperty('maxStreams');
    expect(config).not.toHaveProperty('heartbeatMs');
  });

  it('reads RESTAP_HEARTBEAT_MS, RESTAP_MAX_STREAMS (also the per-client cap unless RESTAP_MAX_STREAMS_PER_CLIENT), RESTAP_RATE_LIMIT (0 = off), RESTAP_API_KEY, RESTAP_SHUTDOWN_GRACE_MS', () => {
    const env = { RESTAP_HEARTBEAT_MS: '1000', RESTAP_MAX_STREAMS: '4000', RESTAP_RATE_LIMIT: '0', RESTAP_API_KEY: ' k ', RESTAP_SHUTDOWN_GRACE_MS: '2500', RESTAP_ACCESS_LOG: '1' };
    expect(sampleConfigFromEnv(env)).toMatchObject({ heartbeatMs: 1000, maxStreams: 4000, maxStreamsPerClient: 4000, rateLimitPerMinute: 0, apiKey: 'k', shutdownGraceMs: 2500, accessLog: true });
    expect(sampleConfigFromEnv({ ...env, RESTAP_MAX_STREAMS_PER_CLIENT: '10' }).maxStreamsPerClient).toBe(10);
  });

  it('issue 34: RESTAP_OAUTH_ISSUER turns OAuth on (audience defaults to localhost:PORT); RESTAP_OAUTH_PLAYGROUND_CLIENT_ID names the playground\'s client', () => {
    expect(sampleConfigFromEnv({}).oauth).toBeUndefined();
    expect(sampleConfigFromEnv({ RESTAP_OAUTH_ISSUER: 'http://127.0.0.1:9000', PORT: '4000' }).oauth).toEqual({ issuer: 'http://127.0.0.1:9000', audience: 'http://localhost:4000' });
    expect(sampleConfigFromEnv({ RESTAP_OAUTH_ISSUER: 'http://127.0.0.1:9000', RESTAP_OAUTH_PLAYGROUND_CLIENT_ID: ' playground ' }).oauth).toMatchObject({ playgroundClientId: 'playground' });
  });

  it('issue 35, item 4: reads RESTAP_REQUIRE_APPROVAL and RESTAP_APPROVAL_STATE_SECRET (unset or blank: none)', () => {
    const config = sampleConfigFromEnv({ RESTAP_REQUIRE_APPROVAL: 'text.reverse, notes.delete', RESTAP_APPROVAL_STATE_SECRET: ' 0123456789abcdef0123456789abcdef ' });
    expect(config).toMatchObject({ requireApproval: ['text.reverse', 'notes.delete'], approvalStateSecret: '0123456789abcdef0123456789abcdef' });
    expect(sampleConfigFromEnv({ RESTAP_APPROVAL_STATE_SECRET: '  ' })).not.toHaveProperty('approvalStateSecret');
  });

  it('a malformed number stops startup with the variable named', () => {
    expect(() => sampleConfigFromEnv({ RESTAP_MAX_STREAMS: 'lots' })).toThrow(/RESTAP_MAX_STREAMS must be an integer of at least 1, got 'lots'/);
    expect(() => sampleConfigFromEnv({ RESTAP_HEARTBEAT_MS: '0' })).toThrow(/RESTAP_HEARTBEAT_MS/);
    expect(() => sampleConfigFromEnv({ RESTAP_RATE_LIMIT: '-1' })).toThrow(/RESTAP_RATE_LIMIT/);
    expect(sampleConfigFromEnv({ RESTAP_REDIS_URL: ' redis://127.0.0.1:6379/0 ' }).redisUrl).toBe('redis://127.0.0.1:6379/0');
    expect(sampleConfigFromEnv({}).redisUrl).toBeUndefined();
    expect(sampleConfigFromEnv({ RESTAP_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(sampleConfigFromEnv({ RESTAP_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(() => sampleConfigFromEnv({ RESTAP_REDIS_URL: '127.0.0.1:6379' })).toThrow(/RESTAP_REDIS_URL must be a Redis URL/);
  });

  it('the access log redacts every session_id query value (issue 6, item 4)', () => {
    expect(redactUrl('/news?since=5&session_id=abcdefghijklmnop1234&session_id=x&limit=2')).toBe('/news?since=5&session_id=[redacted]&session_id=[redacted]&limit=2');
    expect(redactUrl('/news?SESSION_ID=abc')).toBe('/news?[redacted]');
    expect(redactUrl('/talk')).toBe('/talk');
  });

  it('the access log judges a query parameter by its decoded name, and shows no other values (issue 21, item 6)', () => {
    const id = 'abcdefghijklmnop1234';
    expect(redactUrl(`/news?since=0&session%5Fid=${id}`)).toBe('/news?since=0&session_id=[redacted]');
    expect(redactUrl(`/news?%73ession_id=${id}&limit=${id}`)).toBe('/news?session_id=[redacted]&limit=[redacted]');
    expect(redactUrl(`/news?${id}&x=${id}&%zz=${id}`)).toBe('/news?[redacted]&[redacted]&[redacted]');
  });
});
