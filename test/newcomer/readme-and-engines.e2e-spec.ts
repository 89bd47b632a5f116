import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';

/** npm's own range matching (semver comes with npm's dependency tree here; typed for what is used). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require('semver') as { satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean; major(version: string): number };

const ROOT = join(__dirname, '../..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
/** Pages other issues are writing at the same time: the README links them by name before they land. */
const PAGES_OF_OTHER_ISSUES = ['docs/observability.md', 'docs/approvals.md', 'docs/resumable-talk.md', 'docs/oauth.md', 'docs/ag-ui.md'];

/** Relative link targets of a markdown file (no URLs, no pure anchors), without their anchor. */
function relativeLinks(file: string): string[] {
  return [...read(file).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
    .map((target) => resolve(dirname(join(ROOT, file)), target.split('#')[0]).slice(ROOT.length + 1));
}

describe('issue 40 item 13: a README that fits on a screen, and docs pages for the rest', () => {
  const readme = read('README.md');

  it('the README is under 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(300);
  });

  it('keeps the two set-up commands in fenced blocks of their own: `npm ci && npm start` and `npm test`', () => {
    expect(readme).toContain('```sh\nnpm ci && npm start\n```');
    expect(readme).toContain('```sh\nnpm test\n```');
  });

  it('links every docs page, those of the other issues included', () => {
    const linked = new Set(relativeLinks('README.md'));
    expect([...DOCS, ...PAGES_OF_OTHER_ISSUES].filter((page) => !linked.has(page))).toEqual([]);
  });

  it('every relative link of the README and the docs pages leads to a file of the repository', () => {
    const broken = ['README.md', ...DOCS].flatMap((file) =>
      relativeLinks(file).filter((target) => !existsSync(join(ROOT, target)) && !PAGES_OF_OTHER_ISSUES.includes(target)).map((t) => `${file} → ${t}`),
    );
    expect(broken).toEqual([]);
  });
});

describe('issue 40 item 13: one guide to adding the module, not two in different words', () => {
  it("the npm package's README carries the repository README's five-minute integration, generated (scripts/package-readme.mjs --check)", () => {
    const root = join(__dirname, '..', '..');
    expect(() => execFileSync(process.execPath, [join(root, 'scripts/package-readme.mjs'), '--check'], { cwd: root, stdio: 'pipe' })).not.toThrow();
    const page = readFileSync(join(root, 'libs/restap/README.md'), 'utf8');
    expect(page).toContain('## Use');
    expect(page.split('// src/app.module.ts').length - 1).toBe(1);
  });
});

describe('issue 40 item 10: `npm ci` prints no EBADENGINE line on the Node versions the README names', () => {
  const engines = JSON.parse(read('package.json')).engines.node as string;
  /** "Node.js 22.22.3+ or 24.15+" → the lowest versions of each line it names. */
  const named = [...(/\*\*Node\.js ([^*]+)\*\*/.exec(read('README.md'))?.[1] ?? '').matchAll(/(\d+)\.(\d+)(?:\.(\d+))?\+/g)].map(
    (m) => `${m[1]}.${m[2]}.${m[3] ?? 0}`,
  );
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string }; dev?: boolean }> };

  it('the README names 22 and 24, package.json\'s engines accepts each named floor and refuses Node 20', () => {
    expect(named.map((v) => semver.major(v))).toEqual([22, 24]);
    for (const version of named) expect(semver.satisfies(version, engines)).toBe(true);
    expect(semver.satisfies('20.19.0', engines)).toBe(false);
  });

  it('every package of the lockfile accepts every named version, as npm checks on install (Node 20 would warn)', () => {
    const refusing = (version: string) =>
      Object.entries(lock.packages)
        .filter(([path, meta]) => path && meta.engines?.node && !semver.satisfies(version, meta.engines.node, { includePrerelease: true }))
        .map(([path, meta]) => `${path.replace(/^.*node_modules\//, '')} wants ${meta.engines?.node}`);
    for (const version of named) expect(refusing(version)).toEqual([]);
    // The check can fail: on Node 20 the same lockfile has packages that refuse it.
    expect(refusing('20.20.2').length).toBeGreaterThan(0);
  });
});
