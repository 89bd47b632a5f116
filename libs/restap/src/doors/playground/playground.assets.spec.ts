import { readFileSync } from 'node:fs';
import { GENERATED_FILE, renderPlaygroundSources, renderWireModule, WIRE_ASSET, WIRE_FILE } from '../../../../../scripts/playground-assets';
import { RESTAP_CATALOG_SCHEMA } from '../../wire/catalog.schema';
import { CAPABILITY_ID_PATTERN, SESSION_ID_HEADER } from '../../wire/constants';
import { PLAYGROUND_SOURCES } from './playground-sources.generated';
import { PlaygroundAssets } from './playground.assets';

describe('playground sources compiled into the package', () => {
  it('playground-sources.generated.ts matches assets/ (regenerate with `npm run playground:assets`)', () => {
    const current = readFileSync(GENERATED_FILE, 'utf8');
    try {
      expect(current).toBe(renderPlaygroundSources());
    } catch (error) {
      (error as Error).message = `${GENERATED_FILE} is stale: run \`npm run playground:assets\` and commit it.\n\n${(error as Error).message}`;
      throw error;
    }
  });

  it('assets/wire.generated.js matches libs/restap-wire (regenerate with `npm run playground:assets`)', () => {
    const current = readFileSync(WIRE_FILE, 'utf8');
    try {
      expect(current).toBe(renderWireModule());
    } catch (error) {
      (error as Error).message = `${WIRE_FILE} is stale: run \`npm run playground:assets\` and commit it.\n\n${(error as Error).message}`;
      throw error;
    }
  });

  it('issue 33: the page checks the catalog with the schema and capability-id pattern of restap-wire, not a hand copy', () => {
    /* eslint-disable-next-line @typescript-eslint/no-require-imports -- the browser module, compiled by Jest's swc like the rest */
    const wire = require('./assets/wire.generated.js') as Record<string, unknown>;
    expect(wire.RESTAP_CATALOG_SCHEMA).toEqual(RESTAP_CATALOG_SCHEMA);
    expect(String(wire.CAPABILITY_ID_PATTERN)).toBe(String(CAPABILITY_ID_PATTERN));
    expect(wire.SESSION_ID_HEADER).toBe(SESSION_ID_HEADER);
    const handWritten = Object.entries(PLAYGROUND_SOURCES).filter(([name]) => name !== WIRE_ASSET && name.endsWith('.js'));
    for (const [name, text] of handWritten) {
      expect([name, text]).not.toEqual([name, expect.stringMatching(/required: \[|restap_version|\[A-Za-z\]\[A-Za-z0-9_-\]|'Restap-Session-Id'/)]);
    }
    expect(PLAYGROUND_SOURCES['catalog-check.js']).toContain(`from './${WIRE_ASSET}'`);
  });

  it('the page has no inline script, inline style or event-handler attribute (the CSP forbids them)', () => {
    const html = PLAYGROUND_SOURCES['index.html'];
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="{{assets}}/app.js">']);
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toMatch(/\son[a-z]+="/);
  });

  it('no module assigns HTML strings or evaluates code (nothing the agent sends can become markup or script)', () => {
    for (const [name, text] of Object.entries(PLAYGROUND_SOURCES).filter(([n]) => n.endsWith('.js'))) {
      expect([name, text]).not.toEqual([name, expect.stringMatching(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(/)]);
    }
  });
});

describe('PlaygroundAssets: a fixed map, keyed by path below the playground', () => {
  const assets = new PlaygroundAssets('/api/console', '/.well-known/restap.json');

  it('the page names its stylesheet and entry module under the versioned asset path, and the catalog', () => {
    const page = (assets.get('') as { body: Buffer }).body.toString('utf8');
    expect(page).toContain(`<link rel="stylesheet" href="/api/console/assets/${assets.version}/playground.css">`);
    expect(page).toContain(`<script type="module" src="/api/console/assets/${assets.version}/app.js"></script>`);
    expect(page).toContain('<meta name="restap-catalog" content="/.well-known/restap.json">');
    expect(page).not.toContain('{{');
  });

  it('issue 34: the page names its own path (the sign-in\'s redirect URI) and the playground\'s OAuth client, escaped; none without one', () => {
    const page = (assets.get('') as { body: Buffer }).body.toString('utf8');
    expect(page).toContain('<meta name="restap-playground" content="/api/console">');
    expect(page).toContain('<meta name="restap-oauth-client" content="">');
    const withClient = (new PlaygroundAssets('/playground', '/c', 'pg"<client>').get('') as { body: Buffer }).body.toString('utf8');
    expect(withClient).toContain('<meta name="restap-oauth-client" content="pg&quot;&lt;client&gt;">');
  });

  it('every module imported by another is in the map; nothing else is', () => {
    const keys = Object.keys(PLAYGROUND_SOURCES).filter((n) => n !== 'index.html').map((n) => `assets/${assets.version}/${n}`);
    for (const key of keys) expect(assets.get(key)).toBeDefined();
    for (const [, text] of Object.entries(PLAYGROUND_SOURCES)) {
      for (const [, rel] of text.matchAll(/from '\.\/([^']+)'/g)) expect(assets.get(`assets/${assets.version}/${rel}`)).toBeDefined();
    }
    for (const key of ['index.html', 'assets/app.js', `assets/${assets.version}/../index.html`, `assets/${assets.version}`, '/']) expect(assets.get(key)).toBeUndefined();
  });

  it('stays under the 100 KB budget; its version is a hash of the content, the same for every mount path', () => {
    expect(assets.totalBytes()).toBeLessThan(100 * 1024);
    expect(assets.version).toMatch(/^[\w-]{12}$/);
    expect(new PlaygroundAssets('/x', '/c').version).toBe(assets.version);
  });
});
