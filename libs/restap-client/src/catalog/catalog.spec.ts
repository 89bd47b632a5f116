import { catalogFixture } from '../testing/fake-fetch';
import { locateCatalog } from './catalog.location';
import { findNewsRead, findNewsWrite, sessionRequired, streamingAdvertised } from './catalog.lookup';
import { validateCatalog } from './catalog.validator';

describe('locateCatalog', () => {
  it.each([
    ['http://a.test', 'http://a.test/', 'http://a.test/.well-known/restap.json'],
    ['http://a.test/', 'http://a.test/', 'http://a.test/.well-known/restap.json'],
    ['http://a.test/agents/x', 'http://a.test/agents/x/', 'http://a.test/agents/x/.well-known/restap.json'],
    ['http://a.test/.well-known/restap.json?x=1', 'http://a.test/', 'http://a.test/.well-known/restap.json'],
  ])('%s', (input, baseUrl, catalogUrl) => {
    expect(locateCatalog(input)).toEqual({ baseUrl, catalogUrl });
  });

  it('rejects what is not an http(s) URL', () => {
    expect(() => locateCatalog('localhost:3000')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(() => locateCatalog('ftp://a.test')).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });
});

describe('validateCatalog', () => {
  it('accepts the minimal shape and extra fields', () => {
    expect(validateCatalog({ ...catalogFixture(), packages: [], vendor: 1 }).problems).toEqual([]);
  });

  it('lists each problem', () => {
    expect(validateCatalog({ restap_version: 1, agent: { name: '' }, capabilities: [{ id: 'a' }, 3] }).problems).toEqual([
      'restap_version must be a string',
      'agent.name must be a non-empty string',
      'capabilities[0].method must be a non-empty string',
      'capabilities[0].endpoint must be a non-empty string',
      'capabilities[1] must be an object',
    ]);
    expect(validateCatalog('nope').problems).toEqual(['the catalog is not a JSON object']);
  });
});

describe('catalog lookups', () => {
  it('finds news by id, else by method and path', () => {
    const renamed = { restap_version: '1', agent: { name: 'x' }, capabilities: [
      { id: 'feed.read', method: 'GET', endpoint: '/api/news' },
      { id: 'feed.write', method: 'post', endpoint: '/api/news', sessions: { supported: true, required: true } },
    ] };
    expect(findNewsRead(renamed)?.id).toBe('feed.read');
    expect(findNewsWrite(renamed)?.id).toBe('feed.write');
    expect(sessionRequired(findNewsWrite(renamed))).toBe(true);
  });

  it('reads streaming from streaming.supported or output_formats', () => {
    expect(streamingAdvertised({ id: 't', method: 'POST', endpoint: '/t', output_formats: ['text/event-stream'] })).toBe(true);
    expect(streamingAdvertised({ id: 't', method: 'POST', endpoint: '/t', streaming: { supported: false } })).toBe(false);
  });
});
