import { resolveOptions } from '../../restap-options.resolver';
import { matchRestapRoute } from './restap-paths';

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
});
