import { resolveOptions } from '../../../restap-options.resolver';
import { hostRoutingOf, matchRestapRoute } from './restap-paths';

describe('matchRestapRoute (issue 6, item 1: which paths get the module error shape)', () => {
  const options = resolveOptions({ agent: { name: 'A' } });
  const paths = { talk: '/api/talk', news: '/api/news' };

  it.each([
    ['/api/talk', { route: 'talk', subpath: false }],
    ['/api/talk/', { route: 'talk', subpath: false }],
    ['/api/talk/extra', { route: 'talk', subpath: true }],
    ['/api/news/1/2', { route: 'news', subpath: true }],
    ['/.well-known/restap.json', { route: 'catalog', subpath: false }],
    ['/.well-known/restap.json/x', { route: 'catalog', subpath: true }],
    ['/api/talkative', undefined],
    ['/talk', undefined],
    ['/', undefined],
  ])('%s → %j', (path, expected) => expect(matchRestapRoute(path, paths, options)).toEqual(expected));

  it('a disabled endpoint is not the module\'s: the host answers there', () => {
    const off = resolveOptions({ agent: { name: 'A' }, talk: false, news: false });
    expect(matchRestapRoute('/api/talk', paths, off)).toBeUndefined();
    expect(matchRestapRoute('/api/news/x', paths, off)).toBeUndefined();
  });

  describe('variant paths match exactly as the host router matches them (issue 21, item 1)', () => {
    const defaults = { caseSensitive: false, strict: false };
    it.each([
      ['/api/TALK', defaults, { route: 'talk', subpath: false }],
      ['/API/Talk/', defaults, { route: 'talk', subpath: false }],
      ['/api/News/', defaults, { route: 'news', subpath: false }],
      ['/api/talk//', defaults, { route: 'talk', subpath: true }],
      ['/api/TALK', { caseSensitive: true, strict: false }, undefined],
      ['/api/talk/', { caseSensitive: false, strict: true }, { route: 'talk', subpath: true }],
      ['/api/NEWS', { caseSensitive: false, strict: true }, { route: 'news', subpath: false }],
      ['/.WELL-KNOWN/restap.JSON', defaults, { route: 'catalog', subpath: false }],
      ['/.well-knownXrestap.json', defaults, undefined],
    ])('%s under %j → %j', (path, routing, expected) => expect(matchRestapRoute(path, paths, options, routing)).toEqual(expected));

    it("reads the router's own settings, else the app's", () => {
      expect(hostRoutingOf({ router: { caseSensitive: true, strict: false } })).toEqual({ caseSensitive: true, strict: false });
      expect(hostRoutingOf({ enabled: (s: string) => s === 'strict routing' })).toEqual({ caseSensitive: false, strict: true });
      expect(hostRoutingOf(undefined)).toEqual({ caseSensitive: false, strict: false });
    });
  });
});
